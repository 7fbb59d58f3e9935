/**
 * 13. Scrolling back through a long room: how smoothly headless Chromium
 * scrolls the transcript from the newest of 1,000 messages back to the
 * room's start, loading the older pages on the way, as a reader flicking a
 * wheel would. The transcript is virtual (only the rows in and near view
 * are in the page), so the cost per frame is rendering the rows that come
 * into view; this measures it frame by frame.
 *
 * `--target preview` measures the production build; the default target is
 * the dev build (React's development mode, unminified, Vite's module graph).
 */
import { findChromium, launchBrowser, NO_CHROMIUM } from "../../tests/support/browser.ts";
import { Api } from "../lib/client.ts";
import { type Section, value, withApp } from "../lib/section.ts";
import { seedViaRoute } from "../lib/seed.ts";
import { summarize } from "../lib/stats.ts";
import { switchBack } from "./room-switch.ts";

/** The room's size; a quick run scrolls back through fewer (it checks the section runs, not its figures). */
const MESSAGES = 1_000;
const QUICK_MESSAGES = 150;
/** Pixels scrolled per frame: a quick flick of a wheel, about a row every frame. */
const STEP_PX = 120;

/** What the page records while it scrolls: the time of every frame, and whether the view moved in it. */
interface ScrollRecord {
  frames: number[];
  moved: boolean[];
  reachedStart: boolean;
  elements: number;
}

export const scroll: Section = async (ctx, out) => {
  const runs = ctx.quick ? 1 : 3;
  // A full run throws away one run first (caches, JIT); a quick run's figure is not read.
  const warmups = ctx.quick ? 0 : 1;
  const messages = ctx.quick ? QUICK_MESSAGES : MESSAGES;
  const switches = ctx.quick ? 2 : 20;
  out.notes.push(
    `A room of ${messages.toLocaleString("en")} messages (the bench seeding route), opened at its newest message in headless Chromium (1280×800, a fresh context per run, ${runs} runs after ${warmups} untimed). Then every animation frame scrolls the log ${STEP_PX} px up (scrollTop, in a requestAnimationFrame loop in the page) until "This is the start of" the room shows; older pages load on the way as they would for a reader.`,
    `Then switching: a ${messages.toLocaleString("en")}-message room and a 10-message one, each opened once, then ${switches} switches back and forth by clicking the sidebar (400 ms apart), timed in the page from the click to the room's newest message shown (MutationObserver on rows and styles, checkVisibility: the rooms left stay in the page, hidden) and to the animation frame after it.`,
    "fps = frames in which the view moved ÷ the time they took; frame time = the interval between consecutive frames in which the view moved (frames spent waiting at the top for a page to arrive are not counted: nothing was drawn there). Long frames: over 33 ms (under 30 fps).",
    `Target: ${ctx.target === "preview" ? "the production build under vite preview" : "the dev build under vite dev (React development mode)"}.`
  );
  if (!findChromium()) {
    out.skipped.push(NO_CHROMIUM);
    return;
  }
  await withApp(async (app) => {
    const api = new Api(app.url);
    const room = await api.createRoom("default", `Scroll back ${Date.now().toString(36)}`);
    const seeded = await seedViaRoute(api, "default", room.id, messages);
    if (!seeded.ok) {
      out.skipped.push(seeded.reason);
      return;
    }
    const browser = await launchBrowser();
    const fps: number[] = [];
    const frameMs: number[] = [];
    let longFrames = 0;
    let movedFrames = 0;
    let maxElements = 0;
    try {
      for (let i = -warmups; i < runs; i++) {
        const record = await scrollBack(browser, app.url, room.id);
        if (!record.reachedStart) throw new Error("the scroll never reached the room's start");
        if (i < 0) continue;
        const intervals: number[] = [];
        let movedTime = 0;
        for (let f = 1; f < record.frames.length; f++) {
          if (!record.moved[f]) continue;
          const dt = record.frames[f] - record.frames[f - 1];
          intervals.push(dt);
          movedTime += dt;
        }
        fps.push((intervals.length / movedTime) * 1000);
        frameMs.push(...intervals);
        longFrames += intervals.filter((dt) => dt > 33.4).length;
        movedFrames += intervals.length;
        maxElements = Math.max(maxElements, record.elements);
      }
      // Then switching between this room and a small one, back and forth (room-switch.ts).
      const small = await api.createRoom("default", `Switch to ${Date.now().toString(36)}`);
      for (let i = 0; i < 5; i++) await api.send("default", small.id, `[[fake:chunks=3]] switch ${i}`);
      const newest = async (r: { id: string; name: string }) => ({
        ...r,
        newestId: (await api.page("default", r.id, 1)).messages[0].id as string
      });
      const switched = await switchBack(browser, app.url, [await newest(room), await newest(small)], switches);
      out.figures["switch back to a room opened a moment ago: click → its newest message in the page"] = summarize(
        switched.dom,
        "ms"
      );
      out.figures["switch back: click → the frame that draws it"] = summarize(switched.frame, "ms");
    } finally {
      await browser.close();
    }
    out.figures[`scroll back ${messages.toLocaleString("en")} messages: fps`] = summarize(fps, "fps");
    out.figures["frame time while scrolling"] = summarize(frameMs, "ms");
    out.figures["long frames (> 33 ms)"] = value((longFrames / Math.max(1, movedFrames)) * 100, "% of frames", 1);
    out.figures["elements in the page at the start of the room"] = value(maxElements, "elements", 0);
  });
};

async function scrollBack(
  browser: Awaited<ReturnType<typeof launchBrowser>>,
  base: string,
  roomId: string
): Promise<ScrollRecord> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const signedIn = await context.request.post(`${base}/api/session`, { data: { name: "Bench reader" } });
    if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()}`);
    const page = await context.newPage();
    await page.goto(`${base}/sub/chat-room/${roomId}`);
    await page.locator('[role="log"] [data-message-id]').last().waitFor({ timeout: 60_000 });
    // Let the opening settle (rows measured, Markdown loaded) before timing.
    await page.waitForTimeout(500);
    // The page's own deadline runs on animation frames, which a stalled
    // renderer stops producing (seen once in a loaded run, where the section
    // then hung until the test's timeout): Node keeps a deadline of its own.
    let stalled: ReturnType<typeof setTimeout> | undefined;
    const stall = new Promise<never>((_, reject) => {
      stalled = setTimeout(() => reject(new Error("the scroll stalled: no frame for 150 s")), 150_000);
    });
    const scrolled = page.evaluate(
      ({ step }) =>
        new Promise<ScrollRecord>((resolve) => {
          const log = document.querySelector<HTMLElement>('[role="log"]');
          if (!log) throw new Error("no log");
          const frames: number[] = [];
          const moved: boolean[] = [];
          // A wheel turned up first, as a reader's scroll starts: the transcript
          // stops following the bottom (it leaves only on the reader's gesture).
          log.dispatchEvent(new WheelEvent("wheel", { deltaY: -1, bubbles: true }));
          let lastTop = log.scrollTop;
          const deadline = performance.now() + 120_000;
          const tick = (now: number) => {
            frames.push(now);
            moved.push(log.scrollTop !== lastTop);
            lastTop = log.scrollTop;
            const atStart = log.textContent?.includes("This is the start of") && log.scrollTop === 0;
            if (atStart || now > deadline) {
              resolve({ frames, moved, reachedStart: !!atStart, elements: document.querySelectorAll("*").length });
              return;
            }
            log.scrollTop = Math.max(0, log.scrollTop - step);
            requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        }),
      { step: STEP_PX }
    );
    return await Promise.race([scrolled, stall]).finally(() => clearTimeout(stalled));
  } finally {
    await context.close();
  }
}
