/**
 * Search across rooms from the Ctrl+K box, and the deep link it opens: a
 * message 50,000 messages back loads on its own page, scrolled to and
 * highlighted.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BENCH_APP_CONFIG, previewOf } from "../support/app-build";
import { type DevServer, startDevServer } from "../support/dev-server";
import { launchBrowser, messageRows, newUser, rest, roomUrl, seedRoom, uniqueName } from "./helpers";

// The benchmarks' Worker (its production build): the app plus its seeding route, the only way to
// put 50,000 messages in a room within a test's time.
const ctx = {} as { app: DevServer; browser: Browser };
beforeAll(async () => {
  [ctx.app, ctx.browser] = await Promise.all([
    startDevServer({ vars: { RATE_LIMIT_SCALE: "0" }, ...previewOf(inject("benchAppBuild"), BENCH_APP_CONFIG) }),
    launchBrowser("shell")
  ]);
});
afterAll(async () => {
  await ctx.browser?.close();
  await ctx.app?.stop();
});
const BACK = 50_000;

describe("search in the browser", () => {
  it("finds a message 50,000 back from Ctrl+K, grouped by room, and opens it scrolled to and highlighted", async () => {
    const { app, browser } = ctx;
    const word = `platypus${Date.now().toString(36)}`;
    const deepName = uniqueName("Deep room");
    const otherName = uniqueName("Other room");
    const deep = await rest.createRoom(app.url, { name: deepName });
    const other = await rest.createRoom(app.url, { name: otherName });
    await rest.send(app.url, deep.id, `The ${word} manifesto <b>not bold</b>`, "Ann");
    await rest.send(app.url, other.id, `Another ${word} here`, "Ben");
    const target = (await rest.messages(app.url, deep.id)).messages.find((m) => m.role === "user")!;
    await seedRoom(app.url, deep.id, BACK);
    // The first search in a room builds its index (50,000 rows here) and may
    // miss the deadline: that search answers partial: true, later ones not.
    await expect
      .poll(
        async () => ((await (await fetch(`${app.url}/api/search?q=${word}`)).json()) as { partial: boolean }).partial,
        { timeout: 60_000 }
      )
      .toBe(false);

    const { context, page } = await newUser(browser, { displayName: "Reader", appUrl: app.url });
    await page.goto(app.url);
    await page.locator(`#room-list a[data-room-id="${deep.id}"]`).waitFor();
    await page.keyboard.press("Control+K");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("room-filter");
    await page.keyboard.type(word);

    const results = page.getByRole("region", { name: "Messages matching the search" });
    const deepGroup = results.locator(`[data-search-room="${deep.id}"]`);
    await deepGroup.getByRole("heading", { name: deepName }).waitFor();
    await results.locator(`[data-search-room="${other.id}"]`).getByRole("heading", { name: otherName }).waitFor();
    const hit = deepGroup.locator(`[data-search-hit="${target.id}"]`);
    await expect.poll(() => hit.locator("mark").first().textContent()).toBe(word);
    // The message's markup is shown as text, never rendered.
    expect(await hit.textContent()).toContain("<b>not bold</b>");
    expect(await results.locator("b").count()).toBe(0);

    const overlay = await page.locator("vite-error-overlay").count();
    if (overlay)
      throw new Error(
        await page.evaluate(() => document.querySelector("vite-error-overlay")?.shadowRoot?.textContent ?? "")
      );
    await hit.click();
    await expect.poll(() => new URL(page.url()).search).toBe(`?m=${target.id}`);
    const row = page.locator(`[data-jump-target="true"] [data-message-id="${target.id}"]`);
    await row.waitFor();
    await expect.poll(() => row.isVisible()).toBe(true);
    const box = await row.boundingBox();
    const viewport = page.viewportSize()!;
    expect(box && box.y >= 0 && box.y < viewport.height).toBe(true);
    expect(await page.locator('[aria-current="true"][data-jump-target="true"]').count()).toBe(1);
    // Only the page around the message is loaded, not the 50,000 after it.
    expect(await messageRows(page).count()).toBeLessThanOrEqual(50);

    // Back to the live conversation: the newest seeded message is there.
    await page.getByRole("button", { name: "Back to latest" }).click();
    await expect.poll(() => new URL(page.url()).search).toBe("");
    await page
      .getByText(`Seeded answer #${BACK + 1}.`, { exact: false })
      .first()
      .waitFor();
    await context.close();
  });

  it("opens a deep link pasted straight into the address bar", async () => {
    const { app, browser } = ctx;
    const room = await rest.createRoom(app.url, { name: uniqueName("Link room") });
    for (let i = 0; i < 3; i++) await rest.send(app.url, room.id, `linked message ${i}`);
    const page1 = await rest.messages(app.url, room.id);
    const target = page1.messages[2];
    const { context, page } = await newUser(browser, { appUrl: app.url });
    await page.goto(`${roomUrl(app.url, room.id)}?m=${target.id}`);
    await page.locator(`[data-jump-target="true"] [data-message-id="${target.id}"]`).waitFor();
    // An unknown message says so instead of showing an empty room.
    await page.goto(`${roomUrl(app.url, room.id)}?m=no-such-message`);
    await page.getByRole("alert").getByText("not in this room").waitFor();
    await context.close();
  });
});
