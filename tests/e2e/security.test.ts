/**
 * Text from people and from the model is only ever text: HTML in a room name,
 * a message or an answer is shown literally and never runs.
 */
import type { Browser, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { type E2EApp, messageRows, newUser, rest, roomUrl, sendFromComposer, useAppAndBrowser } from "./helpers";

const setup = useAppAndBrowser();
let app: E2EApp;
let browser: Browser;

const IMG = `<img src=x onerror="window.__xss=1">`;
const SCRIPT = `<script>window.__xss=1</script>`;

beforeAll(() => {
  ({ app, browser } = setup);
});

async function expectNoScriptRan(page: Page) {
  // A control image with the same broken source: once its error handler has
  // run, an injected one's would have run too.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const probe = new Image();
        probe.onerror = () => resolve();
        probe.src = "x";
      })
  );
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
  expect(await page.locator("img[src='x']").count()).toBe(0);
  expect(await page.locator("main script, nav script").count()).toBe(0);
}

describe("untrusted text", () => {
  it("shows HTML in a room name as text, in the list, the header and the title", async () => {
    const name = `${IMG}${SCRIPT}`;
    const room = await rest.createRoom(app.url, { name });
    const { context, page } = await newUser(browser);
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(roomUrl(app.url, room.id));
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(name);
    await page.getByRole("navigation", { name: "Rooms" }).getByText(name).waitFor();
    expect(await page.title()).toContain(name);
    await expectNoScriptRan(page);
    expect(dialogs).toEqual([]);
    await context.close();
  });

  it("shows HTML in a message and in the model's answer as literal text", async () => {
    const room = await rest.createRoom(app.url, { name: "XSS messages" });
    const { context, page } = await newUser(browser, { displayName: "Mallory" });
    await page.goto(roomUrl(app.url, room.id));
    const payload = `${IMG} and ${SCRIPT}`;
    await sendFromComposer(page, payload);

    const user = messageRows(page, "user").last();
    await user.getByText(payload).waitFor();
    // The fake model echoes the text back: Markdown must not turn it into HTML.
    const answer = messageRows(page, "assistant").last();
    await answer.getByText(`Echo: ${payload}`).waitFor();
    await expectNoScriptRan(page);

    // Also after a reload, when everything comes from storage.
    await page.reload();
    await messageRows(page, "assistant").last().getByText(`Echo: ${payload}`).waitFor();
    await expectNoScriptRan(page);
    await context.close();
  });

  it("does not render javascript: links from the model as live links", async () => {
    const room = await rest.createRoom(app.url, { name: "XSS links" });
    const { context, page } = await newUser(browser);
    await page.goto(roomUrl(app.url, room.id));
    const md = encodeURIComponent(
      '[click me](javascript:window.__xss=1) and <a href="javascript:window.__xss=1">me too</a>'
    );
    await sendFromComposer(page, `[[fake:text=${md}]]`);
    const answer = messageRows(page, "assistant").last();
    await answer
      .getByText(/click me/)
      .first()
      .waitFor();
    expect(await page.locator("a[href^='javascript:' i]").count()).toBe(0);
    await answer
      .getByText(/click me/)
      .first()
      .click();
    await expectNoScriptRan(page);
    await context.close();
  });
});

describe("what the page may load", () => {
  it("never fetches a remote image in Markdown in the page; a click opens it in a tab of its own, without a referrer", async () => {
    const room = await rest.createRoom(app.url, { name: "Tracking pixels" });
    const { context, page } = await newUser(browser, { displayName: "Rita" });
    // The room's page must never ask the tracker; the context also sees the opened tab.
    const fromRoom: string[] = [];
    const remote: Array<{ url: string; referer: string | undefined }> = [];
    page.on("request", (request) => {
      if (request.url().includes("tracker.example")) fromRoom.push(request.url());
    });
    context.on("request", (request) => {
      if (request.url().includes("tracker.example")) {
        remote.push({ url: request.url(), referer: request.headers().referer });
      }
    });
    // The first page load of a cold dev server can be slow on a busy machine.
    await page.goto(roomUrl(app.url, room.id), { timeout: 90_000 });
    const md = encodeURIComponent("Look: ![a pixel](https://tracker.example/p.png?who=reader)");
    await sendFromComposer(page, `[[fake:text=${md}]]`);
    const open = messageRows(page, "assistant")
      .last()
      .getByRole("link", { name: /Open image .*tracker\.example/ });
    await open.waitFor();
    // Rendered, and still nothing asked of the tracker (also not after a reload).
    await page.reload();
    await open.waitFor();
    expect(remote).toEqual([]);
    expect(await open.getAttribute("rel")).toBe("noopener noreferrer");
    const [tab] = await Promise.all([context.waitForEvent("page"), open.click()]);
    await expect.poll(() => remote.length).toBeGreaterThan(0);
    expect(remote[0].url).toBe("https://tracker.example/p.png?who=reader");
    expect(remote[0].referer ?? "").toBe("");
    expect(fromRoom).toEqual([]);
    await tab.close();
    await context.close();
  });

  it("serves the app under a content security policy it runs cleanly with", async () => {
    const room = await rest.createRoom(app.url, { name: "Under CSP" });
    const { context, page } = await newUser(browser, { displayName: "Cleo" });
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(roomUrl(app.url, room.id));
    const csp = response?.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(response?.headers()["x-content-type-options"]).toBe("nosniff");
    await expect.poll(() => page.getByRole("status", { name: "Connection: Live" }).count()).toBe(1);
    await sendFromComposer(page, "```js\nconst highlighted = true;\n```");
    await messageRows(page, "assistant").last().getByText("highlighted").first().waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });
});
