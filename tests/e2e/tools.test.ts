/**
 * A room's Tools dialog in the browser: the owner opens it from the room's
 * menu, adds a server the room may not reach (plain http to a loopback
 * address; this app runs without MCP_ALLOW_PRIVATE), and reads the server's
 * refusal with everything typed still in place, the token included, while
 * nothing is added. axe finds nothing serious in the dialog. Another member
 * opening it is told who may change tools, and nothing breaks.
 */
import { describe, expect, it } from "vitest";
import { composer, newUser, roomMenuAction, roomUrl, seriousViolations, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();

describe("the Tools dialog", () => {
  it("shows the server's refusal of an address with what was typed kept, and who may change tools", async () => {
    const owner = await newUser(setup.browser, { displayName: "Tove" });
    const created = await owner.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Tools") }
    });
    expect(created.status()).toBe(201);
    const room = (await created.json()) as { id: string };

    const page = owner.page;
    await page.goto(roomUrl(setup.app.url, room.id));
    // The room's chunk may still be compiling on a first visit to a busy server.
    await composer(page).waitFor({ timeout: 60_000 });
    await roomMenuAction(page, "Tools");
    const dialog = page.getByRole("dialog", { name: "Tools" });
    await dialog.getByText("No servers yet.", { exact: false }).waitFor();
    expect(await seriousViolations(page, "tools dialog")).toEqual([]);

    const fields = {
      name: dialog.getByLabel("Server name"),
      url: dialog.getByLabel("Server address"),
      headerName: dialog.getByLabel("Header name"),
      headerValue: dialog.getByLabel("Header value")
    };
    await fields.name.fill("Local tracker");
    await fields.url.fill("http://127.0.0.1:1/mcp");
    await fields.headerName.fill("Authorization");
    await fields.headerValue.fill("Bearer e2e-token");
    await dialog.getByRole("button", { name: "Add server" }).click();

    const refusal = dialog.getByRole("alert").filter({ hasText: "must start with https:" });
    await refusal.waitFor();
    expect(await fields.name.inputValue()).toBe("Local tracker");
    expect(await fields.url.inputValue()).toBe("http://127.0.0.1:1/mcp");
    expect(await fields.headerName.inputValue()).toBe("Authorization");
    expect(await fields.headerValue.inputValue()).toBe("Bearer e2e-token");
    // The token is typed into a password field, and never shows as text.
    expect(await fields.headerValue.getAttribute("type")).toBe("password");
    expect(await dialog.textContent()).not.toContain("e2e-token");
    expect(await dialog.getByText("No servers yet.", { exact: false }).count()).toBe(1);
    expect(await seriousViolations(page, "tools dialog with an error")).toEqual([]);

    // Someone who is not the room's owner (nor an admin) is told who may, in the server's words.
    const member = await newUser(setup.browser, { displayName: "Mads" });
    await member.page.goto(roomUrl(setup.app.url, room.id));
    await composer(member.page).waitFor({ timeout: 60_000 });
    await roomMenuAction(member.page, "Tools");
    const refused = member.page.getByRole("dialog", { name: "Tools" }).getByRole("alert");
    await expect.poll(() => refused.textContent()).toContain("MCP servers");
    expect(await member.page.getByLabel("Server name").count()).toBe(0);

    await owner.context.close();
    await member.context.close();
  });

  it("says when an MCP server's sign-in did not work, as the Worker sends the browser back, until dismissed", async () => {
    const owner = await newUser(setup.browser, { displayName: "Tove" });
    const created = await owner.context.request.post(`${setup.app.url}/api/rooms`, {
      data: { name: uniqueName("Sign-in") }
    });
    const room = (await created.json()) as { id: string };
    const why = "The provider said: access_denied <b>not bold</b>";
    await owner.page.goto(`${roomUrl(setup.app.url, room.id)}?${new URLSearchParams({ mcp_error: why })}`);
    await composer(owner.page).waitFor({ timeout: 60_000 });
    const alert = owner.page.getByRole("alert").filter({ hasText: "Signing in to an MCP server did not work." });
    // The reason is shown as text, markup and all.
    await alert.getByText(why, { exact: false }).waitFor();
    expect(await alert.locator("b", { hasText: "not bold" }).count()).toBe(0);
    expect(await seriousViolations(owner.page, "sign-in failed")).toEqual([]);
    await alert.getByRole("button", { name: "Dismiss" }).click();
    await alert.waitFor({ state: "detached" });
    expect(new URL(owner.page.url()).searchParams.has("mcp_error")).toBe(false);
    await owner.context.close();
  });
});
