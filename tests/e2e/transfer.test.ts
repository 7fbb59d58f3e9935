/** Export, import and fork from the UI. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { messageRows, newUser, rest, roomUrl, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();
const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/chatgpt-conversations.json");

describe("moving conversations in the browser", () => {
  it("forks a room from a message and links back to where it came from", async () => {
    const { app, browser } = setup;
    const room = await rest.createRoom(app.url, { name: uniqueName("Forkable") });
    await rest.send(app.url, room.id, "first question");
    await rest.send(app.url, room.id, "second question");
    const { context, page } = await newUser(browser);
    await page.goto(roomUrl(app.url, room.id));
    const first = messageRows(page, "user").first();
    await first.getByText("first question").waitFor();
    await first.hover();
    await first.getByRole("button", { name: "Fork from here" }).click();
    await expect.poll(() => page.url()).not.toBe(roomUrl(app.url, room.id));
    await page.getByText("Forked from").waitFor();
    await page.getByRole("link", { name: room.name, exact: true }).waitFor();
    // The fork holds the history up to and including that message only.
    await messageRows(page, "user").first().getByText("first question").waitFor();
    expect(await messageRows(page).count()).toBe(1);
    await context.close();
  });

  it("imports a ChatGPT export from the home page with progress, and offers exports", async () => {
    const { app, browser } = setup;
    const { context, page } = await newUser(browser);
    await page.goto(app.url);
    await page.getByRole("button", { name: "Import conversations" }).waitFor();
    await page.getByLabel(/Import file/).setInputFiles(FIXTURE);
    await page.getByRole("status").getByText("Imported 2 rooms.").waitFor();
    await page.locator("#room-list").getByText("Packing for Lisbon").first().waitFor();
    expect(await page.getByRole("link", { name: "Export all rooms" }).getAttribute("href")).toBe("/api/export");

    // A bad file says what is wrong.
    await page.getByLabel(/Import file/).setInputFiles({
      name: "bad.json",
      mimeType: "application/json",
      buffer: Buffer.from('{"hello": 1}')
    });
    await page
      .getByRole("alert")
      .getByText(/Unrecognised file/)
      .waitFor();
    await context.close();
  });
});
