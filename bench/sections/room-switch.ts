/**
 * Switching back to a room opened a moment ago (issue 25: under 16 ms, from
 * memory, then refreshed): in headless Chromium, a reader opens room A,
 * then B, then goes back and forth by clicking the rooms in the sidebar.
 * Each switch is timed in the page from the click to the room's newest
 * message shown in the DOM (a room kept mounted is there all along,
 * hidden), and to the next animation frame after it (the frame that draws
 * it). Run inside the scroll section, on its server and browser.
 */
import type { launchBrowser } from "../../tests/support/browser.ts";

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

/** A room to switch to: its name in the sidebar and the id of its newest message. */
export interface SwitchRoom {
  id: string;
  name: string;
  newestId: string;
}

export interface SwitchTimes {
  /** Click → the newest message's row shown in the transcript. */
  dom: number[];
  /** Click → the animation frame after that (the one that draws it). */
  frame: number[];
}

/** `switches` timed switches back and forth between `a` and `b`, after one visit to each. */
export async function switchBack(
  browser: Browser,
  base: string,
  [a, b]: [SwitchRoom, SwitchRoom],
  switches: number
): Promise<SwitchTimes> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const times: SwitchTimes = { dom: [], frame: [] };
  try {
    const signedIn = await context.request.post(`${base}/api/session`, { data: { name: "Bench switcher" } });
    if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()}`);
    const page = await context.newPage();
    const newestRow = (room: SwitchRoom) => page.locator(`[role="log"] [data-message-id="${room.newestId}"]`);
    await page.goto(`${base}/sub/chat-room/${a.id}`);
    await newestRow(a).waitFor({ timeout: 60_000 });
    for (let i = -1; i < switches; i++) {
      const to = i % 2 === 0 ? a : b;
      const measured = await page.evaluate(
        ({ name, newestId }) =>
          new Promise<{ dom: number; frame: number }>((resolve, reject) => {
            const link = [...document.querySelectorAll<HTMLAnchorElement>('nav[aria-label="Rooms"] a')].find((l) =>
              l.textContent?.includes(name)
            );
            if (!link) return reject(new Error(`no sidebar link for ${name}`));
            // Shown, not only in the DOM: a room left a moment ago stays in the page, hidden.
            const present = () =>
              [...document.querySelectorAll(`[role="log"] [data-message-id="${newestId}"]`)].some((row) =>
                row.checkVisibility()
              );
            let domAt: number | null = null;
            const observer = new MutationObserver(() => {
              if (domAt === null && present()) domAt = performance.now();
            });
            observer.observe(document.body, {
              childList: true,
              subtree: true,
              attributes: true,
              attributeFilter: ["style"]
            });
            const t0 = performance.now();
            link.click();
            if (present()) domAt = performance.now();
            const deadline = t0 + 30_000;
            // The frame's own timestamp is when it was due, not when it ran: read the clock.
            const onFrame = () => {
              const now = performance.now();
              if (domAt !== null) {
                observer.disconnect();
                resolve({ dom: domAt - t0, frame: now - t0 });
              } else if (now > deadline) {
                observer.disconnect();
                reject(new Error(`${name}: its newest message never appeared`));
              } else requestAnimationFrame(onFrame);
            };
            requestAnimationFrame(onFrame);
          }),
        { name: to.name, newestId: to.newestId }
      );
      // The first switch to B opens it (not from memory): not timed.
      if (i >= 0) {
        times.dom.push(measured.dom);
        times.frame.push(measured.frame);
      }
      // Let the room's refresh from the server land before the next switch.
      await page.waitForTimeout(400);
    }
  } finally {
    await context.close();
  }
  return times;
}
