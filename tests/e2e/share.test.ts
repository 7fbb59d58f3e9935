/** Share links in the browser: a member shares a room, someone with no session watches it live, then loses it on revoke. */
import { describe, expect, it } from "vitest";
import {
  composer,
  messageRows,
  newUser,
  rest,
  roomUrl,
  sendFromComposer,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

describe("share links", () => {
  it("let a person with no session watch history and a live stream, read-only, until the link is revoked", async () => {
    const { app, browser } = setup;
    const room = await rest.createRoom(app.url, { name: uniqueName("Shared") });
    await rest.send(app.url, room.id, "question before sharing");

    const member = await newUser(browser, { displayName: "Ann" });
    await member.page.goto(roomUrl(app.url, room.id));
    await messageRows(member.page, "assistant").first().getByText("Echo: question before sharing").waitFor();
    await member.page.getByRole("button", { name: "Share room" }).click();
    const dialog = member.page.getByRole("dialog", { name: "Share room" });
    await dialog.getByText("No links yet.").waitFor();
    await dialog.getByRole("button", { name: "Create link" }).click();
    const linkField = dialog.getByRole("textbox", { name: "Share link" });
    await linkField.waitFor();
    const link = await linkField.inputValue();
    expect(link).toMatch(new RegExp(`^${app.url}/share/[\\w.-]+$`));
    await dialog.getByText(/By Ann/).waitFor();

    // Someone with no session at all.
    const viewer = await newUser(browser, { signedOut: true });
    await viewer.page.goto(link);
    await viewer.page.getByRole("heading", { name: room.name }).waitFor();
    await viewer.page.getByText("Read-only", { exact: true }).waitFor();
    await messageRows(viewer.page, "user").first().getByText("question before sharing").waitFor();
    await messageRows(viewer.page, "assistant").first().getByText("Echo: question before sharing").waitFor();
    await viewer.page.getByRole("status", { name: "Connection: Live" }).waitFor();
    expect(await composer(viewer.page).count()).toBe(0);
    expect(await viewer.page.getByRole("button", { name: /Send|Stop|Regenerate|Edit/ }).count()).toBe(0);

    // The member writes; the viewer sees the answer arrive token by token.
    await dialog.getByRole("button", { name: "Close dialog" }).click();
    await sendFromComposer(member.page, "[[fake:chunks=60,slow=100]] live question");
    await messageRows(viewer.page, "user").getByText("live question").waitFor();
    await viewer.page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('[data-message-id][data-role="assistant"]')];
        const text = rows.at(-1)?.textContent ?? "";
        return text.includes("t3 ") && !text.includes("t59");
      },
      undefined,
      { timeout: 30_000, polling: 50 }
    );
    await messageRows(viewer.page, "assistant").last().getByText(/t59/).waitFor({ timeout: 30_000 });

    // Revoking ends the live view and every later open.
    await member.page.getByRole("button", { name: "Share room" }).click();
    await dialog.getByRole("button", { name: "Revoke link" }).click();
    await dialog.getByText("No links yet.").waitFor();
    await viewer.page.getByRole("heading", { name: "This link is no longer valid" }).waitFor();
    await viewer.page.reload();
    await viewer.page.getByRole("heading", { name: "This link is no longer valid" }).waitFor();

    await viewer.context.close();
    await member.context.close();
  });
});
