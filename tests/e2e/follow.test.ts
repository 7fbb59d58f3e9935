/**
 * Following the conversation, as chat apps do, with three people: your own
 * send always takes you to the bottom; while you are at the bottom, new
 * messages and streamed tokens keep you there (a persona's answer and a
 * panel streaming at once included); someone who scrolled up to read stays
 * where they were, and only they are offered "Jump to latest".
 *
 * Each page records, on every animation frame, how far the log is from its
 * bottom: a view that stops following shows as a long run of frames off the
 * bottom, which no single sample could catch reliably.
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
    __follow?: { distances: number[]; stop: boolean };
  }
}

/** Starts recording the log's distance from its bottom on every frame. */
async function recordFollowing(page: Page) {
  await page.evaluate(() => {
    const probe = { distances: [] as number[], stop: false };
    window.__follow = probe;
    const tick = () => {
      const el = document.querySelector<HTMLElement>('[role="log"]');
      if (el) probe.distances.push(el.scrollHeight - el.scrollTop - el.clientHeight);
      if (!probe.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Stops recording: the frames seen and the longest run of consecutive frames off the bottom. */
async function followingRecord(page: Page) {
  return page.evaluate((offPx) => {
    const probe = window.__follow;
    if (!probe) throw new Error("not recording");
    probe.stop = true;
    let run = 0;
    let longestOff = 0;
    for (const d of probe.distances) {
      run = d > offPx ? run + 1 : 0;
      longestOff = Math.max(longestOff, run);
    }
    return { frames: probe.distances.length, longestOff, last: probe.distances.at(-1) ?? Number.NaN };
  }, OFF_BOTTOM_PX);
}

const distanceFromBottom = (page: Page) => log(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
/** By text: while hidden it is aria-hidden, so out of the accessibility tree. */
const jumpToLatest = (page: Page) => page.locator("button", { hasText: "Jump to latest" });
const offered = (page: Page) => jumpToLatest(page).getAttribute("aria-hidden");

/** The id of the first message whose top shows in the log, and where its top is. */
const firstInView = (page: Page) =>
  log(page).evaluate((el) => {
    const area = el.getBoundingClientRect();
    for (const row of el.querySelectorAll<HTMLElement>("[data-message-id]")) {
      const rect = row.getBoundingClientRect();
      if (rect.top >= area.top) return { id: row.dataset.messageId, top: Math.round(rect.top - area.top) };
    }
    return null;
  });

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
  it("keeps the sender and watchers at the bottom through a persona answer and a panel, and leaves a reader who scrolled up in place", async () => {
    const room = await roomWithHistory();
    const alice = await person("Alice", room.id);
    const bob = await person("Bob", room.id);
    const carol = await person("Carol", room.id);
    for (const page of [alice, bob, carol]) {
      await messageRows(page).getByText("Earlier question 11, for some history.", { exact: true }).waitFor();
      await expect.poll(() => distanceFromBottom(page)).toBeLessThanOrEqual(1);
    }

    // Carol scrolls up to read; the others stay at the bottom.
    await log(carol).hover();
    await carol.mouse.wheel(0, -600);
    await expect.poll(() => offered(carol)).toBe("false");
    await expect.poll(() => distanceFromBottom(carol)).toBeGreaterThan(300);
    const carolWasReading = await firstInView(carol);
    expect(carolWasReading).not.toBeNull();

    for (const page of [alice, bob]) await recordFollowing(page);
    // Bob asks the panel (Ada and Grace stream at once); Alice asks Ada while they do.
    await composer(bob).fill("Which option first? [[fake:chunks=50,slow=80]]");
    await bob.getByRole("button", { name: "Ask the panel" }).click();
    await messageRows(alice, "assistant").getByText(/t3 /).first().waitFor({ timeout: 30_000 });
    const walk = encodeURIComponent(`${"step by step ".repeat(20)}done walking`);
    await composer(alice).fill(`@Ada walk us through it [[fake:text=${walk},chunk=4,slow=60]]`);
    await composer(alice).press("Enter");

    // Everything streamed: the panel's answers, and Ada's answer to Alice; nothing runs any more.
    for (const page of [alice, bob, carol]) {
      for (const last of [/t49/, /done walking/]) {
        await messageRows(page, "assistant").getByText(last).first().waitFor({ timeout: 90_000 });
      }
      await page.getByRole("button", { name: "Stop generating" }).waitFor({ state: "detached", timeout: 90_000 });
    }
    for (const page of [alice, bob]) {
      await expect.poll(() => distanceFromBottom(page)).toBeLessThanOrEqual(1);
      const record = await followingRecord(page);
      // Hundreds of frames of streaming, never more than a couple in a row off the bottom.
      expect(record.frames).toBeGreaterThan(50);
      expect(record.longestOff, JSON.stringify(record)).toBeLessThanOrEqual(3);
      expect(await offered(page)).toBe("true");
    }

    // Carol is where she was, and "Jump to latest" takes her down; then she follows too.
    const carolNow = await firstInView(carol);
    expect(carolNow?.id).toBe(carolWasReading?.id);
    expect(Math.abs((carolNow?.top ?? 0) - (carolWasReading?.top ?? 0))).toBeLessThanOrEqual(4);
    await jumpToLatest(carol).click();
    await expect.poll(() => distanceFromBottom(carol)).toBeLessThanOrEqual(1);
    await expect.poll(() => offered(carol)).toBe("true");
    await recordFollowing(carol);
    await composer(alice).fill("One more for everyone [[fake:chunks=30,slow=60]]");
    await composer(alice).press("Enter");
    await messageRows(carol, "assistant").getByText(/t29/).last().waitFor({ timeout: 30_000 });
    await expect.poll(() => distanceFromBottom(carol)).toBeLessThanOrEqual(1);
    expect((await followingRecord(carol)).longestOff).toBeLessThanOrEqual(3);
  });

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
    expect(record.longestOff).toBeLessThanOrEqual(3);
    expect(await offered(alice)).toBe("true");
  });
});
