/**
 * Unread counts and "N new messages", across two people: the counts are
 * kept per person on the server, so they follow a person across tabs and
 * reloads, and one person's reading never changes another's.
 */
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  composer,
  log,
  rest,
  roomUrl,
  sendFromComposer,
  signedInPeople,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

/** Each person in a browser context of their own, closed after each test. */
const person = signedInPeople(setup);

/** A room where nobody answers, so every count is a count of people's messages. */
const humansOnlyRoom = (prefix: string) => rest.humansOnlyRoom(setup.app.url, uniqueName(prefix));

const row = (page: Page, roomId: string) => page.locator(`[data-room-id="${roomId}"]`);
/**
 * The unread count a room's row shows (NaN until the person's read marks
 * have arrived), checked against its badge's accessible label.
 */
async function unreadIn(page: Page, roomId: string): Promise<number> {
  const shown = await row(page, roomId).getAttribute("data-unread");
  if (shown === null) return Number.NaN;
  const badge = row(page, roomId).locator(".sr-only", { hasText: /unread/ });
  const label = (await badge.count()) ? await badge.first().textContent() : null;
  if (Number(shown) === 0) return label === null ? 0 : Number.NaN;
  const match = label?.match(/^(\d+) unread messages?$/);
  return match && Number(match[1]) === Number(shown) ? Number(shown) : Number.NaN;
}

/** Whether an element shows inside the window (and inside the transcript's scrolling area). */
const inView = (locator: Locator) =>
  locator.evaluate((el) => {
    const rect = el.getBoundingClientRect();
    const area = el.closest('[role="log"]')?.getBoundingClientRect() ?? { top: 0, bottom: window.innerHeight };
    return rect.top >= Math.max(0, area.top) - 1 && rect.top < Math.min(window.innerHeight, area.bottom);
  });

describe("unread counts", () => {
  it("count Ann's messages on Ben's list, clear when Ben opens the room, and stay his own", async () => {
    const room = await humansOnlyRoom("Unread");
    const ann = await person("Ann");
    const ben = await person("Ben");
    await ann.page.goto(roomUrl(setup.app.url, room.id));
    await ben.page.goto(setup.app.url);
    await row(ben.page, room.id).waitFor();

    for (const text of ["Ann one", "Ann two", "Ann three"]) {
      await sendFromComposer(ann.page, text);
      // In the transcript: the room list's preview may show the same words.
      await ann.page.getByRole("log").getByText(text, { exact: true }).waitFor();
    }
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(3);
    await expect(row(ben.page, room.id).getByText("3 unread messages").count()).resolves.toBe(1);
    // The row's accessible name says the count once, its parts apart.
    // (the snapshot's first line is the link and its name; the lines under it, its children)
    const name = (await row(ben.page, room.id).ariaSnapshot()).split("\n")[0];
    expect(name).toContain(`${room.name} `);
    expect(name.match(/unread/g)).toHaveLength(1);
    // Ann wrote and sees them: nothing is unread for her, on her open tab or a new one.
    await expect.poll(() => unreadIn(ann.page, room.id)).toBe(0);
    const annSecondTab = await ann.context.newPage();
    await annSecondTab.goto(setup.app.url);
    await row(annSecondTab, room.id).waitFor();
    await expect.poll(() => unreadIn(annSecondTab, room.id)).toBe(0);

    // Ben opens the room: the divider marks where the new messages start, and his badge clears.
    await row(ben.page, room.id).click();
    const divider = ben.page.getByRole("separator", { name: "3 new messages" });
    await divider.waitFor();
    const firstNew = ben.page.locator("[data-message-id]").filter({ hasText: "Ann one" });
    expect(await divider.evaluate((el, next) => el.nextElementSibling === next, await firstNew.elementHandle())).toBe(
      true
    );
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(0);
    // The room being read shows no badge while more arrive; the server counts them read once they show.
    await sendFromComposer(ann.page, "Ann while Ben reads");
    await log(ben.page).getByText("Ann while Ben reads", { exact: true }).waitFor();
    expect(
      await row(ben.page, room.id)
        .locator(".sr-only", { hasText: /unread/ })
        .count()
    ).toBe(0);
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(0);

    // Kept on the server: another tab of Ben's, and a reload, show it read. The mark
    // reaches the server with the room's next coalesced report, so the other tab is
    // asked first (a reload within that moment would still show the last one new).
    const benElsewhere = await ben.context.newPage();
    await benElsewhere.goto(setup.app.url);
    await row(benElsewhere, room.id).waitFor();
    await expect.poll(() => unreadIn(benElsewhere, room.id)).toBe(0);
    await benElsewhere.close();
    await ben.page.reload();
    await row(ben.page, room.id).waitFor();
    await composer(ben.page).waitFor();
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(0);
    expect(await ben.page.getByRole("separator", { name: /new message/ }).count()).toBe(0);

    // Away from the room, Ben counts what Ann writes next.
    await ben.page.goto(setup.app.url);
    await row(ben.page, room.id).waitFor();
    await sendFromComposer(ann.page, "Ann four");
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(1);
    await expect(row(ben.page, room.id).getByText("1 unread message").count()).resolves.toBe(1);
    await expect.poll(() => unreadIn(annSecondTab, room.id)).toBe(0);
  });

  it("opening a room with its first new message out of view shows a bar that jumps to it", async () => {
    const room = await humansOnlyRoom("Long unread");
    const ben = await person("Ben");
    await rest.send(setup.app.url, room.id, "Read before");
    await ben.page.goto(roomUrl(setup.app.url, room.id));
    // In the transcript: the room list previews the same words.
    await log(ben.page).getByText("Read before", { exact: true }).waitFor();
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(0);
    await ben.page.goto(setup.app.url);
    await row(ben.page, room.id).waitFor();

    const count = 30;
    for (let i = 0; i < count; i++)
      await rest.send(setup.app.url, room.id, `New message ${i}: ${"and more ".repeat(12)}`);
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(count);

    await row(ben.page, room.id).click();
    const jump = ben.page.getByRole("button", { name: `${count} new messages: jump to the first` });
    await jump.waitFor();
    const firstNew = ben.page.locator("[data-message-id]").filter({ hasText: /New message 0:/ });
    expect((await firstNew.count()) === 0 || !(await inView(firstNew))).toBe(true);
    // The newest is on screen, so the room is read at once; the bar stays until the first new one is seen.
    await expect.poll(() => unreadIn(ben.page, room.id)).toBe(0);
    await jump.click();
    await expect.poll(async () => (await firstNew.count()) > 0 && (await inView(firstNew))).toBe(true);
    await expect.poll(() => jump.count()).toBe(0);
    // Focus stays in the transcript (on it, or on the message jumped to when it had to be loaded), not on the page.
    const focus = await ben.page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return "page";
      return el.closest('[role="log"], [data-message-id], [data-jump-target]') ? "transcript" : el.tagName;
    });
    expect(focus).toBe("transcript");
  });
});
