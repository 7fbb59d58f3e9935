/**
 * The room from the keyboard: the transcript and the room list are one tab
 * stop each, so Tab from the top of the page reaches the composer in a few
 * presses however many messages and rooms there are; ↑/↓ walk the messages,
 * → and ←/→ a message's own controls, Escape goes back; and Escape stops an
 * answer you asked for, and only yours.
 */
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import {
  composer,
  importRoom,
  messageRows,
  newUser,
  rest,
  roomUrl,
  sendFromComposer,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const setup = useAppAndBrowser();

const contexts: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => {})));
});

/** What has focus: a message's id, a control's name, or the element. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return "body";
    if (el.dataset.messageId) return `message ${el.dataset.messageId}`;
    const name = el.getAttribute("aria-label") || el.textContent?.trim().slice(0, 40) || "";
    return `${el.tagName.toLowerCase()} ${name}`;
  });

describe("the keyboard", () => {
  it("reaches the composer in at most 15 Tab presses in a 100-message room, and walks the messages with the arrows", async () => {
    const { context, page } = await newUser(setup.browser, { displayName: "Kim" });
    contexts.push(context);
    // Kim's own import: it opens read, with no "new messages" in the way.
    const roomId = await importRoom(setup.app.url, uniqueName("Keys"), 100, 2, undefined, context);
    await page.goto(roomUrl(setup.app.url, roomId));
    await messageRows(page).getByText("Message number 99.").waitFor();
    expect(await page.getByRole("button", { name: /new messages?: jump/ }).count()).toBe(0);
    expect(await page.locator(`[data-room-id="${roomId}"]`).getAttribute("data-unread")).toBe("0");

    // From the top of the page: focus the document itself, so the next Tab starts at its beginning.
    await page.evaluate(() => {
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute("tabindex");
    });
    const stops: string[] = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab");
      const now = await focused(page);
      stops.push(now);
      if (now.startsWith("textarea")) break;
    }
    expect(stops.at(-1), stops.join(" → ")).toMatch(/^textarea/);
    // The page's fixed controls: the skip link, the sidebar's six (notifications, new room,
    // search, the room list as one stop, you, the account and help menu), the header's five
    // (who is here, copy link, share, settings, more), the transcript as one stop, Attach
    // files and the composer. None of them grows with the room.
    expect(stops.length, stops.join(" → ")).toBeLessThanOrEqual(15);
    console.log(
      `Tab stops from the page start to the composer, 100-message room: ${stops.length}: ${stops.join(" → ")}`
    );
    // One stop for the whole transcript: the newest message.
    const lastId = await messageRows(page).last().getAttribute("data-message-id");
    expect(stops.filter((s) => s.startsWith("message"))).toEqual([`message ${lastId}`]);

    // Back into the transcript (past Attach files), then up and down the messages.
    await page.keyboard.press("Shift+Tab");
    expect(await focused(page)).toBe("button Attach files");
    await page.keyboard.press("Shift+Tab");
    expect(await focused(page)).toBe(`message ${lastId}`);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    const third = await focused(page);
    expect(third).toMatch(/^message /);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Message number 97.");
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Message number 98.");

    // → into the message's controls, ←/→ among them, Escape back to the message.
    await page.keyboard.press("ArrowRight");
    const first = await focused(page);
    expect(first).toMatch(/^button /);
    await page.keyboard.press("ArrowRight");
    expect(await focused(page)).not.toBe(first);
    await page.keyboard.press("ArrowLeft");
    expect(await focused(page)).toBe(first);
    await page.keyboard.press("Escape");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Message number 98.");
    // The message keeps the tab stop it was given: Tab leaves, Shift+Tab comes back to it.
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("button Attach files");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatch(/^textarea/);
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Message number 98.");

    // Home and End: the first and last loaded messages; ↑ on the first loads earlier ones.
    const loaded = Number(await page.locator("[data-loaded-messages]").getAttribute("data-loaded-messages"));
    await page.keyboard.press("Home");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toContain(`Message number ${100 - loaded}.`);
    await page.keyboard.press("ArrowUp");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent), { timeout: 20_000 })
      .toContain(`Message number ${100 - loaded - 1}.`);
    await page.keyboard.press("End");
    await expect.poll(() => focused(page)).toBe(`message ${lastId}`);
  });

  it("stops the answer you asked for with Escape, and not someone else's", async () => {
    const room = await rest.createRoom(setup.app.url, { name: uniqueName("Escape") });
    const people: Page[] = [];
    for (const displayName of ["Ann", "Ben"]) {
      const { context, page } = await newUser(setup.browser, { displayName });
      contexts.push(context);
      await page.goto(roomUrl(setup.app.url, room.id));
      await composer(page).waitFor();
      people.push(page);
    }
    const [ann, ben] = people;
    const answer = (page: Page) => messageRows(page, "assistant").last();

    // Ben asks; Ann's Escape leaves his answer running.
    await sendFromComposer(ben, "Tell me a long story [[fake:chunks=400,slow=60]]");
    await answer(ann).getByText(/t3 /).waitFor({ timeout: 30_000 });
    await composer(ann).focus();
    await ann.keyboard.press("Escape");
    await answer(ann).getByText(/t12 /).waitFor({ timeout: 30_000 });
    expect(
      await answer(ann)
        .getByText(/Stopped/)
        .count()
    ).toBe(0);

    // Ben's Escape stops it, for both of them.
    await composer(ben).focus();
    await ben.keyboard.press("Escape");
    for (const page of [ann, ben]) await answer(page).getByText("Stopped by Ben").waitFor({ timeout: 30_000 });
  });
});
