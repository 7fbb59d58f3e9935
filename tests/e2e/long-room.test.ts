/**
 * A long room in the browser: the transcript is virtual, so reading a
 * 1,000-message room back to its start keeps the page small; a streamed
 * answer re-renders only its own row; days are marked by labelled
 * separators; and the wait for an answer is a status inside the log.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  importRoom,
  log,
  messageRows,
  newUser,
  rest,
  roomMenuAction,
  roomUrl,
  sendFromComposer,
  uniqueName,
  useAppAndBrowser
} from "./helpers";

const ctx = useAppAndBrowser();
const DAY_MS = 24 * 60 * 60_000;
const LONG_ROOM_MESSAGES = 1_000;

const loadedMessages = (page: Page) =>
  page
    .locator("[data-loaded-messages]")
    .getAttribute("data-loaded-messages")
    .then((n) => Number(n));

describe("a long room", () => {
  it("holds fewer than 5,000 elements after reading 1,000 messages back to the start, one heading per row", async () => {
    const { app, browser } = ctx;
    const roomId = await importRoom(app.url, "Thousand", LONG_ROOM_MESSAGES, 10);
    const { context, page } = await newUser(browser);
    try {
      await page.goto(roomUrl(app.url, roomId));
      await messageRows(page)
        .getByText(`Message number ${LONG_ROOM_MESSAGES - 1}.`)
        .waitFor();

      // Read back as a reader does, with the wheel, until the room's start shows; each page loads on the way.
      const start = log(page).getByText(/This is the start of/);
      await log(page).hover();
      await expect
        .poll(
          async () => {
            await page.mouse.wheel(0, -20_000);
            return start.isVisible();
          },
          { timeout: 180_000, interval: 250 }
        )
        .toBe(true);
      expect(await loadedMessages(page)).toBe(LONG_ROOM_MESSAGES);
      // The last page's arrival keeps the reader's place (further down): back to the top for the first row.
      const first = messageRows(page).getByText("Message number 0.");
      await expect
        .poll(async () => {
          await page.mouse.wheel(0, -20_000);
          return first.count();
        })
        .toBe(1);

      // Counted in one go: the virtual list may render a row more between two separate looks.
      const { elements, rows, headings } = await page.evaluate(() => ({
        elements: document.querySelectorAll("*").length,
        rows: document.querySelectorAll('[role="log"] [data-message-id]').length,
        headings: document.querySelectorAll('[role="log"] article[data-message-id] h2').length
      }));
      expect(elements).toBeLessThan(5_000);
      expect(rows).toBeLessThan(60);
      // Accessibility survives virtualisation: a heading per rendered message, inside the log.
      expect(headings).toBe(rows);
      console.log(`1,000-message room read to its start: ${elements} elements, ${rows} message rows in the page`);

      // The first day of the room is a labelled separator.
      const firstDay = new Date(Date.now() - 10 * DAY_MS);
      const separators = log(page).getByRole("separator");
      await expect.poll(() => separators.count()).toBeGreaterThan(0);
      expect(await separators.first().getAttribute("aria-label")).toContain(String(firstDay.getDate()));

      // Back to the end: the newest message is there again.
      await page.getByRole("button", { name: "Jump to latest" }).click();
      await messageRows(page)
        .getByText(`Message number ${LONG_ROOM_MESSAGES - 1}.`)
        .waitFor();
      expect(await page.evaluate(() => document.querySelectorAll("*").length)).toBeLessThan(5_000);
    } finally {
      await context.close();
    }
  });

  it("marks each new day with a labelled separator: Today, Yesterday, then dates", async () => {
    const { app, browser } = ctx;
    const roomId = await importRoom(app.url, "Three days", 6, 3);
    const { context, page } = await newUser(browser);
    try {
      await page.goto(roomUrl(app.url, roomId));
      await messageRows(page).getByText("Message number 5.").waitFor();
      // Day dividers only (the "N new messages" divider is a separator too).
      const labels = await log(page)
        .locator("[data-day-divider]")
        .evaluateAll((els) => els.map((el) => el.getAttribute("aria-label")));
      // Six messages over three days, 0.6 days apart up to now: one separator per calendar day they fall on.
      const days = new Set(
        Array.from({ length: 6 }, (_, i) => new Date(Date.now() - 3 * DAY_MS + i * 0.6 * DAY_MS).toDateString())
      );
      expect(labels.length).toBe(days.size);
      expect(labels.at(-1)).toBe("Today");
      expect(labels).toContain("Yesterday");
      expect(new Set(labels).size).toBe(labels.length);
    } finally {
      await context.close();
    }
  });

  it("says the assistant is thinking in a status inside the log until the first words arrive", async () => {
    const { app, browser } = ctx;
    // The room's system prompt carries the key its answer is scripted by.
    const key = uniqueName("thinking");
    const room = await rest.createRoom(app.url, { name: "Thinking", systemPrompt: key });
    const { context, page } = await newUser(browser);
    try {
      await page.goto(roomUrl(app.url, room.id));
      await log(page).waitFor();
      // The first words come 2 s after the answer starts.
      await app.fake.script(key, {
        kind: "text",
        text: "Late first words, then the rest.",
        chunkDelayMs: 2_000,
        chunkSize: 40
      });
      await sendFromComposer(page, "Take your time");
      const thinking = log(page).getByRole("status", { name: "Assistant is thinking" });
      await thinking.first().waitFor();
      // The room's announcements are a separate region, outside the log.
      expect(await log(page).getByRole("status", { name: "Room announcements" }).count()).toBe(0);
      expect(await page.getByRole("status", { name: "Room announcements" }).count()).toBe(1);
      await messageRows(page, "assistant").last().getByText("Late first words").waitFor();
      await expect.poll(() => thinking.count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("re-renders only the streaming message while an answer streams", async () => {
    const { app, browser } = ctx;
    const roomId = await importRoom(app.url, "Streaming", 200, 2);
    const { context, page } = await newUser(browser);
    try {
      // The page counts each message row's renders (src/client/lib/render-probe.ts).
      await page.addInitScript(() => {
        (window as unknown as { __roomsRenderCounts: Record<string, number> }).__roomsRenderCounts = {};
      });
      await page.goto(roomUrl(app.url, roomId));
      await messageRows(page).getByText("Message number 199.").waitFor();

      // A long, slow answer: 1,200 characters, 4 a chunk, one chunk every 25 ms.
      const answer = Array.from({ length: 60 }, (_, i) => `word${i} and more text`).join(" ");
      const key = uniqueName("story");
      await app.fake.script(key, { kind: "text", text: answer, chunkDelayMs: 25, chunkSize: 4 });
      await sendFromComposer(page, `Tell me a long story (${key})`);

      const streaming = page.locator('article[data-role="assistant"][aria-busy="true"]');
      await streaming.getByText("word3 and more").waitFor();
      const streamingId = await streaming.getAttribute("data-message-id");
      const counts = () =>
        page.evaluate(() => ({
          ...(window as unknown as { __roomsRenderCounts: Record<string, number> }).__roomsRenderCounts
        }));
      const before = await counts();
      // The room list changes mid-stream (another room appears): the rows stay as they are.
      const other = uniqueName("Elsewhere");
      await rest.createRoom(app.url, { name: other });
      await page.locator("#room-list").getByText(other).waitFor();
      await streaming.getByText("word40 and more").waitFor({ timeout: 60_000 });
      const after = await counts();
      expect(await streaming.count()).toBe(1);

      const rerendered = Object.keys(after).filter((id) => after[id] !== before[id]);
      expect(rerendered).toEqual([streamingId]);
      expect(after[streamingId!] - before[streamingId!]).toBeGreaterThan(3);

      await page.locator(`article[data-message-id="${streamingId}"][aria-busy="true"]`).waitFor({ state: "detached" });
      await messageRows(page, "assistant").last().getByText("word59 and more text").waitFor();
    } finally {
      await context.close();
    }
  });
});

describe("find in room", () => {
  it("finds matches the page does not hold, walks them with Enter and Shift+Enter, and closes with Escape", async () => {
    const { app, browser } = ctx;
    const word = `narwhal${Date.now().toString(36)}`;
    const at = [10, 250, 290];
    const roomId = await importRoom(app.url, "Findable", 300, 3, (i) =>
      at.includes(i) ? `Message number ${i}. Here is the ${word} you seek.` : `Message number ${i}. Nothing to see.`
    );
    const { context, page } = await newUser(browser);
    try {
      await page.goto(roomUrl(app.url, roomId));
      await messageRows(page).getByText("Message number 299.").waitFor();
      // Message 10 is far older than the first page: not in the transcript, let alone the page.
      expect(await messageRows(page).getByText("Message number 10.").count()).toBe(0);

      await log(page).focus();
      await page.keyboard.press("Control+F");
      const box = page.getByRole("searchbox", { name: "Find in this room" });
      await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
      await box.fill(word);

      const bar = page.getByRole("search", { name: "Find in this room" });
      const status = bar.getByRole("status");
      const target = page.locator("[data-jump-target]");
      // Starts at the newest match, shown highlighted, with the word marked in the bar.
      await expect.poll(() => status.textContent()).toBe("3 of 3");
      await target.getByText("Message number 290.").waitFor();
      expect(await bar.locator("mark").first().textContent()).toBe(word);
      // Focus stays in the box while walking.
      await box.press("Enter");
      await expect.poll(() => status.textContent()).toBe("2 of 3");
      await target.getByText("Message number 250.").waitFor();
      await box.press("Enter");
      await expect.poll(() => status.textContent()).toBe("1 of 3");
      await target.getByText("Message number 10.").waitFor();
      expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
      await box.press("Shift+Enter");
      await target.getByText("Message number 250.").waitFor();

      await page.getByRole("button", { name: "Older match" }).click();
      await target.getByText("Message number 10.").waitFor();

      await box.press("Escape");
      await bar.waitFor({ state: "detached" });
      await messageRows(page).getByText("Message number 299.").waitFor();
      expect(new URL(page.url()).searchParams.get("m")).toBeNull();

      // A word nowhere in the room.
      await roomMenuAction(page, "Find in room");
      await box.fill(`absent${word}`);
      await expect.poll(() => status.textContent()).toBe("No matches");
    } finally {
      await context.close();
    }
  });
});
