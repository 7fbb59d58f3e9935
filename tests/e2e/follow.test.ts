/**
 * Following the conversation, as chat apps do: your own send always takes
 * you to the bottom, and while you are there streamed tokens keep you there,
 * the sender's and the watchers' alike, a panel's several answers included.
 *
 * Each page records, on every animation frame, how far the log is from its
 * bottom and where it is scrolled to. A view that stops following shows as a
 * run of frames off the bottom while the view stands still as the content
 * grows under it, which no single sample could catch reliably. Frames off the
 * bottom while the view moves are the follower catching up: the sample is
 * taken before the frame's resize observers pin the view, and on a loaded
 * machine new tokens can land before several frames in a row.
 */
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { composer, log, messageRows, newUser, rest, roomUrl, uniqueName, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();

const contexts: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => {})));
});
async function person(displayName: string, roomId: string) {
  const user = await newUser(setup.browser, { displayName });
  contexts.push(user.context);
  await user.page.goto(roomUrl(setup.app.url, roomId));
  await composer(user.page).waitFor();
  return user.page;
}

/** Farther than this from the bottom, the newest line is not in view. */
const OFF_BOTTOM_PX = 24;

declare global {
  interface Window {
    __follow?: { samples: { distance: number; top: number }[]; stop: boolean };
  }
}

/** Starts recording the log's distance from its bottom on every frame. */
async function recordFollowing(page: Page) {
  await page.evaluate(() => {
    const probe = { samples: [] as { distance: number; top: number }[], stop: false };
    window.__follow = probe;
    const tick = () => {
      const el = document.querySelector<HTMLElement>('[role="log"]');
      if (el) probe.samples.push({ distance: el.scrollHeight - el.scrollTop - el.clientHeight, top: el.scrollTop });
      if (!probe.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/**
 * Stops recording: the frames seen, and the longest run of consecutive frames
 * off the bottom with the view standing still (left behind by the content).
 */
async function followingRecord(page: Page) {
  return page.evaluate((offPx) => {
    const probe = window.__follow;
    if (!probe) throw new Error("not recording");
    probe.stop = true;
    let run = 0;
    let longestLeftBehind = 0;
    probe.samples.forEach(({ distance, top }, i) => {
      const stoodStill = i > 0 && Math.abs(top - (probe.samples[i - 1]?.top ?? top)) < 0.5;
      run = distance > offPx && stoodStill ? run + 1 : 0;
      longestLeftBehind = Math.max(longestLeftBehind, run);
    });
    return { frames: probe.samples.length, longestLeftBehind };
  }, OFF_BOTTOM_PX);
}

const distanceFromBottom = (page: Page) => log(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
/** By text: while hidden it is aria-hidden, so out of the accessibility tree. */
const jumpToLatest = (page: Page) => page.locator("button", { hasText: "Jump to latest" });
const offered = (page: Page) => jumpToLatest(page).getAttribute("aria-hidden");

async function roomWithHistory() {
  const room = await rest.createRoom(setup.app.url, { name: uniqueName("Follow") });
  for (const name of ["Ada", "Grace"]) {
    const added = await fetch(`${setup.app.url}/api/rooms/${room.id}/personas`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, systemPrompt: `You are ${name}.` })
    });
    expect(added.status).toBe(201);
  }
  // Enough history that the log scrolls well past one screen.
  for (let i = 0; i < 12; i++) await rest.send(setup.app.url, room.id, `Earlier question ${i}, for some history.`);
  return room;
}

describe("following the conversation", () => {
  it("takes the sender to the bottom on send, even after they scrolled up", async () => {
    const room = await roomWithHistory();
    const alice = await person("Alice", room.id);
    await messageRows(alice).getByText("Earlier question 11, for some history.", { exact: true }).waitFor();
    await log(alice).hover();
    await alice.mouse.wheel(0, -800);
    await expect.poll(() => offered(alice)).toBe("false");

    await composer(alice).fill("Back to the present [[fake:chunks=40,slow=60]]");
    await composer(alice).press("Enter");
    await expect.poll(() => distanceFromBottom(alice)).toBeLessThanOrEqual(1);
    await recordFollowing(alice);
    await messageRows(alice, "assistant").getByText(/t39/).waitFor({ timeout: 30_000 });
    await expect.poll(() => distanceFromBottom(alice)).toBeLessThanOrEqual(1);
    const record = await followingRecord(alice);
    expect(record.frames).toBeGreaterThan(10);
    expect(record.longestLeftBehind).toBeLessThanOrEqual(3);
    expect(await offered(alice)).toBe("true");
  });

  it("keeps the sender and two watchers at the bottom while a panel streams", async () => {
    const room = await roomWithHistory();
    const people = [await person("Alice", room.id), await person("Bob", room.id), await person("Carol", room.id)];
    const [, , carol] = people;
    for (const page of people) {
      await messageRows(page).getByText("Earlier question 11, for some history.", { exact: true }).waitFor();
      await expect.poll(() => distanceFromBottom(page)).toBeLessThanOrEqual(1);
      await recordFollowing(page);
    }
    // Ada and Grace answer at once, then the assistant sums up: three answers stream into the room.
    await composer(carol).fill("/panel Which first? [[fake:chunks=30,slow=60]]");
    await composer(carol).press("Enter");
    for (const page of people) {
      await expect
        .poll(() => messageRows(page, "assistant").filter({ hasText: /t29/ }).count(), { timeout: 60_000 })
        .toBeGreaterThanOrEqual(3);
      await expect.poll(() => page.getByRole("button", { name: "Stop generating" }).count()).toBe(0);
    }
    for (const page of people) {
      await expect.poll(() => distanceFromBottom(page)).toBeLessThanOrEqual(1);
      const record = await followingRecord(page);
      expect(record.frames).toBeGreaterThan(10);
      expect(record.longestLeftBehind).toBeLessThanOrEqual(3);
    }
  });
});
