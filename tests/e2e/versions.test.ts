/**
 * Two people, one room: Edit is offered only on your own messages; an edit
 * says what it will do, keeps what it replaces as an earlier version that
 * anyone can flip to, shown as the room showed it (authors, Markdown), and
 * tells the person whose message moved, with a link to where it went.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { log, messageRows, newUser, rest, roomUrl, sendFromComposer, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();

async function join(roomId: string, displayName: string): Promise<Page> {
  const { page } = await newUser(setup.browser, { displayName });
  await page.goto(roomUrl(setup.app.url, roomId));
  await expect.poll(() => page.getByRole("status", { name: "Connection: Live" }).count()).toBe(1);
  return page;
}

const rowWith = (page: Page, text: string) => messageRows(page, "user").filter({ hasText: text });
const editButtons = async (page: Page, text: string) => {
  const row = rowWith(page, text);
  await row.hover();
  return row.getByRole("button", { name: "Edit message" }).count();
};

describe("versions between two people", () => {
  it("offers Edit only on your own messages, and both can flip between the versions of Ann's edit", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Versions") });
    const ann = await join(room.id, "Ann");
    const ben = await join(room.id, "Ben");

    await sendFromComposer(ann, "Ann's first try");
    await log(ben).getByText("Echo: Ann's first try").waitFor();
    await sendFromComposer(ben, "Ben's reply, **bold**");
    await log(ann).getByText("Echo: Ben's reply, bold").waitFor();

    // Each sees Edit on their own message only.
    expect(await editButtons(ann, "Ann's first try")).toBe(1);
    expect(await editButtons(ann, "Ben's reply")).toBe(0);
    expect(await editButtons(ben, "Ben's reply")).toBe(1);
    expect(await editButtons(ben, "Ann's first try")).toBe(0);

    // Ann edits her message: the new version and its answer replace the rest on screen.
    const id = await rowWith(ann, "Ann's first try").getAttribute("data-message-id");
    const row = ann.locator(`[data-message-id="${id}"]`);
    await row.hover();
    await row.getByRole("button", { name: "Edit message" }).click();
    // The form says what saving does: nothing is replaced, Ben's message moves and he is told.
    expect(await row.locator("[data-edit-consequence]").textContent()).toBe(
      "Sends your edit as version 2. This version and the 3 messages after it stay as version 1, one click away under ‹ ›. Ben will see where theirs went."
    );
    await row.getByRole("textbox", { name: "Edit message" }).fill("Ann's second try");
    await row.getByRole("button", { name: "Save & send" }).click();
    await log(ann).getByText("Echo: Ann's second try").first().waitFor();

    // Ben's message did not vanish without a word: he is told, and the link shows it in version 1.
    const notice = ben.locator("[data-moved-notice]");
    await notice.waitFor();
    expect(await notice.textContent()).toContain(
      "Your message “Ben's reply, **bold**” moved to version 1 when Ann edited a message before it."
    );
    expect(await ann.locator("[data-moved-notice]").count()).toBe(0);
    await notice.getByRole("link", { name: "show version 1" }).click();
    const linked = ben.getByRole("region", { name: "Version 1 of 2" });
    await linked.getByText("Ben's reply, **bold**").waitFor();
    await ben.getByRole("button", { name: "Back to latest" }).click();

    for (const page of [ann, ben]) {
      await page.reload();
      const edited = rowWith(page, "Ann's second try");
      await edited.locator("[data-version-position]").getByText("2/2").waitFor();
      expect(await log(page).getByText("Ben's reply").count()).toBe(0);
      // Flip back: version 1 and the thread that followed it are all still there.
      await edited.getByRole("button", { name: "Previous version" }).click();
      const earlier = edited.getByRole("region", { name: "Version 1 of 2" });
      await earlier.waitFor();
      for (const text of ["Ann's first try", "Echo: Ann's first try", "Ben's reply, **bold**"]) {
        expect(await earlier.getByText(text, { exact: true }).count()).toBe(1);
      }
      // As the room showed it: who wrote each message, and the answer's Markdown rendered.
      for (const name of ["Ann", "Ben", "Assistant"]) {
        expect(await earlier.getByRole("heading", { name, exact: true }).count()).toBeGreaterThan(0);
      }
      await expect.poll(() => earlier.getByText("Echo: Ben's reply, bold", { exact: true }).count()).toBe(1);
      await edited.getByRole("button", { name: "Next version" }).click();
      await expect.poll(() => earlier.count()).toBe(0);
      await edited.locator("[data-version-position]").getByText("2/2").waitFor();
    }
    await ann.context().close();
    await ben.context().close();
  });
});
