/**
 * Shared plumbing for the browser tests: one Chromium per file, a fresh
 * context per user, the app (its production build) with the fake OpenAI provider, and
 * small REST helpers to set rooms up without clicking.
 *
 * The browser client only opens the `default` workspace, so browser files
 * cannot keep apart in workspaces of their own on one server: each Vitest
 * worker has its own shared server (tests/support/app-host.ts) and the files
 * it runs take it one after another. A file that needs an empty workspace,
 * restarts the server or needs variables of its own starts its own
 * (`useAppAndBrowser({ ownServer: true })`).
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, inject } from "vitest";
import { Api } from "../../bench/lib/client";
import { seedViaRoute } from "../../bench/lib/seed";
import type { MessagePage, RoomDetail } from "../../src/shared/protocol";
import { launchBrowser } from "../support/browser";
import type { DevServer } from "../support/dev-server";
import { type FakeClient, fakeClient } from "../support/fake-client";
import { restClient } from "../support/rest-client";
import { ACQUIRE_HOOK_TIMEOUT_MS, acquireSharedApp, releaseSharedApp } from "../support/shared-app";
import type { SharedAppOptions } from "../support/shared-app-options";
import { startTestApp as startKitApp } from "../support/test-app";

export { messageText } from "../support/chat-protocol";
export { uniqueName, waitFor } from "../support/wait";
export { launchBrowser };

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Where the docs' screenshots go when they are refreshed (`UPDATE_SCREENSHOTS=1 npm test`). */
const SCREENSHOT_DIR = path.join(ROOT, "docs/screenshots");

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface NewUserOptions extends BrowserContextOptions {
  /** The name this person signs in with before the app loads (default: a unique "User …"). */
  displayName?: string;
  /** Leave the person signed out, to see the sign-in screen. */
  signedOut?: boolean;
  /** Where to sign in, when the app was not started by startTestApp. */
  appUrl?: string;
}

/** The app the file's tests run against (set by startTestApp): newUser signs in there. */
let currentAppUrl: string | null = null;
let userCount = 0;

/**
 * A fresh browser profile (own cookies and storage), i.e. another person,
 * signed in through POST /api/session: the context's request client shares
 * its cookie jar with the pages.
 */
export async function newUser(
  browser: Browser,
  { displayName, signedOut, appUrl, ...options }: NewUserOptions = {}
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce", ...options });
  if (!signedOut) {
    const base = appUrl ?? currentAppUrl;
    if (!base) throw new Error("newUser signs in to the test app: start it first (useAppAndBrowser), or pass appUrl");
    userCount += 1;
    const response = await context.request.post(`${base}/api/session`, {
      data: { name: displayName ?? `User ${userCount}` }
    });
    if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
  }
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  // A dev server on a busy machine can take well over 20 s to serve a first page.
  page.setDefaultNavigationTimeout(60_000);
  return { context, page };
}

/** The app a browser file runs against. */
export interface E2EApp {
  url: string;
  /** The fake provider, read and scripted by what the test names (tests/support/fake-client.ts). */
  fake: FakeClient;
  /** Only on a server of the file's own that `restartsServer`: restart it, read its output. */
  server?: DevServer;
}

export interface AppAndBrowserOptions {
  /**
   * A server of the file's own (another boot): for a file that needs an
   * empty workspace, restarts the server, or needs `vars` no other file may get.
   */
  ownServer?: boolean;
  /** Worker variables of an own server. */
  vars?: Record<string, string>;
  /** The file restarts its own server (`app.server.restart()`): TestAppOptions.restartsServer. */
  restartsServer?: boolean;
  /**
   * The full Chromium instead of the headless shell (tests/support/browser.ts):
   * for a test of the PDF viewer or of desktop notifications.
   */
  fullBrowser?: boolean;
}

/** The shared server of this worker: the fake provider, no rate limits. */
const SHARED: SharedAppOptions = { perWorker: true };

/**
 * A server of the file's own, answering through its own fake provider, with
 * no rate limits (tests set rooms up over REST faster than a person would).
 */
async function startOwnApp(vars: Record<string, string> = {}, restarts = false) {
  const app = await startKitApp({
    vars: { RATE_LIMIT_SCALE: "0", ...vars },
    buildDir: inject("appBuild"),
    // Within the hook's timeout, so a slow start fails the hook rather than leaking a server.
    startTimeoutMs: 170_000,
    restartsServer: restarts
  });
  const e2e: E2EApp = { url: app.url, fake: fakeClient(app.fake.origin) };
  return { app, e2e: restarts ? { ...e2e, server: app.server } : e2e };
}

/**
 * One app and one Chromium for a whole test file, taken together in
 * beforeAll and given back in afterAll. Read `.app` and `.browser` inside
 * tests. Screenshots for the docs (UPDATE_SCREENSHOTS=1) are taken on servers
 * of their own, so no other file's rooms show in them.
 */
export function useAppAndBrowser(options: AppAndBrowserOptions = {}): {
  readonly app: E2EApp;
  readonly browser: Browser;
} {
  const own = options.ownServer || options.vars !== undefined || !!process.env.UPDATE_SCREENSHOTS;
  let app: E2EApp | undefined;
  let stop: (() => Promise<void>) | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const starting = own
      ? startOwnApp(options.vars, options.restartsServer).then(({ app, e2e }) => {
          stop = () => app.stop();
          return e2e;
        })
      : acquireSharedApp(SHARED).then((address) => {
          stop = () => releaseSharedApp(SHARED);
          return { url: address.url, fake: fakeClient(address.fakeOrigin!) } satisfies E2EApp;
        });
    [app, browser] = await Promise.all([starting, launchBrowser(options.fullBrowser ? "full" : "shell")]);
    currentAppUrl = app.url;
  }, ACQUIRE_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    // A later file must not sign people in to this file's server.
    currentAppUrl = null;
    await browser?.close();
    await stop?.();
  });
  return {
    get app() {
      if (!app) throw new Error("the test app is not started (use inside tests)");
      return app;
    },
    get browser() {
      if (!browser) throw new Error("the browser is not started (use inside tests)");
      return browser;
    }
  };
}

/** REST set-up without clicking, through the shared client; every call must succeed. */
export const rest = {
  createRoom: (base: string, body: { name: string; systemPrompt?: string }) => restClient(base).createRoom(body),
  deleteRoom: async (base: string, id: string) => {
    const response = await restClient(base).call(`/${id}`, { method: "DELETE" });
    if (!response.ok) throw new Error(`delete failed ${response.status}: ${await response.text()}`);
  },
  getRoom: async (base: string, id: string) => {
    const response = await restClient(base).call(`/${id}`);
    if (!response.ok) throw new Error(`get failed ${response.status}: ${await response.text()}`);
    return (await response.json()) as RoomDetail;
  },
  /** A new room where nobody answers unless named: every message in it is a person's. */
  humansOnlyRoom: async (base: string, name: string) => {
    const room = await restClient(base).createRoom({ name });
    const response = await restClient(base).call(`/${room.id}`, {
      method: "PATCH",
      json: { defaultResponder: "nobody" }
    });
    if (!response.ok) throw new Error(`quieting the room failed ${response.status}: ${await response.text()}`);
    return room;
  },
  messages: (base: string, id: string, limit = 200) =>
    restClient(base).messages(id, `?limit=${limit}`) as Promise<MessagePage>,
  /** Sends through the REST path and waits for the answer. */
  send: async (base: string, id: string, text: string, author = "API") => {
    const { status, body } = await restClient(base).send(id, text, author);
    if (status !== 200) throw new Error(`send failed ${status}: ${JSON.stringify(body)}`);
    return body as { status: string };
  }
};

/**
 * Fills a room of the default workspace with `count` messages through the
 * bench Worker's seeding route, as the benchmarks do (a server started with
 * bench/lib/dev-server.ts; the app alone has no such route).
 */
export async function seedRoom(base: string, roomId: string, count: number) {
  const seeded = await seedViaRoute(new Api(base), "default", roomId, count);
  if (!seeded.ok) throw new Error(seeded.reason);
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * A room of `count` messages spread evenly over the last `days` days (the
 * newest now), made through the import route (the server keeps imported
 * timestamps): a Rooms export of a small room, its two messages cloned
 * `count / 2` times with new ids and times. `as` imports it as that person
 * (their browser context's requests carry their session), who then has it
 * read; without it, no one has.
 */
export async function importRoom(
  base: string,
  name: string,
  count: number,
  days: number,
  textOf: (i: number) => string = (i) => `Message number ${i}. A line of ordinary chat length, with a clause or two.`,
  as?: BrowserContext
): Promise<string> {
  const source = await rest.createRoom(base, { name });
  await rest.send(base, source.id, "template question");
  const exported = (await (await fetch(`${base}/api/rooms/${source.id}/export`)).json()) as {
    messages: Array<{ id: string; role: string; metadata?: Record<string, unknown> }>;
  };
  await rest.deleteRoom(base, source.id);
  const [question, answer] = exported.messages;
  const start = Date.now() - days * DAY_MS;
  const step = (days * DAY_MS) / Math.max(1, count - 1);
  const prefix = crypto.randomUUID().slice(0, 8);
  exported.messages = Array.from({ length: count }, (_, i) => {
    const template = i % 2 === 0 ? question : answer;
    return {
      ...template,
      id: `long-${prefix}-${i}`,
      parts: [{ type: "text", text: textOf(i) }],
      metadata: { ...template.metadata, createdAt: Math.round(start + i * step) }
    };
  });
  const body = JSON.stringify(exported);
  const url = `${base}/api/rooms/import`;
  const headers = { "content-type": "application/json" };
  let reply: { status: number; text: string };
  if (as) {
    const response = await as.request.post(url, { headers, data: body });
    reply = { status: response.status(), text: await response.text() };
  } else {
    const response = await fetch(url, { method: "POST", headers, body });
    reply = { status: response.status, text: await response.text() };
  }
  if (reply.status !== 201) throw new Error(`import: ${reply.status} ${reply.text}`);
  const { rooms } = JSON.parse(reply.text) as { rooms: Array<{ id: string }> };
  return rooms[0].id;
}

export const roomUrl = (base: string, id: string) => `${base}/sub/chat-room/${id}`;

/**
 * The conversation log and its messages: the open room's only. Rooms left a
 * moment ago stay in the page, hidden (src/client/lib/kept-rooms.ts).
 */
export const log = (page: Page) => page.getByRole("log");
export const messageRows = (page: Page, role?: "user" | "assistant") =>
  page.locator(role ? `[data-message-id][data-role="${role}"]:visible` : "[data-message-id]:visible");
export const composer = (page: Page) => page.getByRole("textbox", { name: /^Message / });

/** Chooses one of the room's actions under "More room actions" in its header (Rename room, Delete room, Room info, …). */
export async function roomMenuAction(page: Page, name: string) {
  const header = page.locator("main header");
  await header.getByRole("button", { name: "More room actions" }).click();
  await header.getByRole("button", { name, exact: true }).click();
}

/** An item of the sidebar's "Account and help" menu: people and access, shortcuts, sign out. */
export async function accountMenuAction(page: Page, name: string) {
  await page.getByRole("button", { name: "Account and help" }).click();
  await page.getByRole("button", { name, exact: true }).click();
}

const AXE = path.join(ROOT, "node_modules/axe-core/axe.min.js");

/**
 * A slow line into a room, for what reaches a page before its transcript
 * listens. The page's read of the room's newest page goes to the server at
 * once, and its answer is held until `releasePage()`; the room socket's
 * frames are held, in their order, until `releaseFrames()`. The socket's
 * opening frame arrives without its page, so the transcript can start only
 * from the held REST page: frames released before it reach a page whose
 * transcript is not yet listening, whatever the timing.
 * `pageRead`: the held page was read (the room as it was then);
 * `held(accepts)`: a frame `accepts` is among those held.
 */
export async function slowLine(page: Page, roomId: string) {
  let releasePage!: () => void;
  const pageReleased = new Promise<void>((resolve) => {
    releasePage = resolve;
  });
  let releaseFrames!: () => void;
  const framesReleased = new Promise<void>((resolve) => {
    releaseFrames = resolve;
  });
  let pageWasRead!: () => void;
  const pageRead = new Promise<void>((resolve) => {
    pageWasRead = resolve;
  });
  const frames: string[] = [];
  const waiters: Array<{ accepts: (frame: string) => boolean; resolve: () => void }> = [];
  await page.route(`**/api/rooms/${roomId}/messages*`, async (route) => {
    const response = await route.fetch();
    pageWasRead();
    await pageReleased;
    await route.fulfill({ response });
  });
  await page.routeWebSocket(
    (url) => url.pathname.endsWith(`/sub/chat-room/${roomId}`),
    (socket) => {
      const server = socket.connectToServer();
      socket.onMessage((message) => server.send(message));
      const held: (string | Buffer)[] = [];
      let flowing = false;
      server.onMessage((message) => {
        let frame = message;
        if (typeof frame === "string" && frame.includes('"rooms_opened"')) {
          const { page: _page, ...rest } = JSON.parse(frame);
          frame = JSON.stringify(rest);
        }
        if (flowing) return socket.send(frame);
        held.push(frame);
        if (typeof frame !== "string") return;
        frames.push(frame);
        for (const waiter of waiters.filter((w) => w.accepts(frame))) waiter.resolve();
      });
      void framesReleased.then(() => {
        flowing = true;
        for (const frame of held.splice(0)) socket.send(frame);
      });
    }
  );
  return {
    pageRead,
    held: (accepts: (frame: string) => boolean, timeoutMs = 20_000) =>
      frames.some(accepts)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no such frame held within ${timeoutMs} ms`)), timeoutMs);
            waiters.push({
              accepts,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              }
            });
          }),
    releaseFrames,
    releasePage
  };
}

/** axe-core's serious and critical findings on the page as it is now, each named with `where` and its elements. */
export async function seriousViolations(page: Page, where: string): Promise<string[]> {
  // Colours mid-transition (a theme just switched, a dialog fading in) would
  // be measured half-way: contrast is judged on the page at rest.
  await waitForStill(page);
  // Evaluated, not added as a script tag: the app's Content-Security-Policy
  // (rightly) refuses inline scripts, and DevTools evaluation is outside it.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(readFileSync(AXE, "utf8"));
  const violations = await page.evaluate(async () => {
    type Found = { id: string; impact: string; nodes: Array<{ target: string[]; failureSummary: string }> };
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: Found[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => `${n.target.join(" ")} (${n.failureSummary})`).join("; ")}`);
  });
  return violations.map((v) => `${where}: ${v}`);
}

export async function sendFromComposer(page: Page, text: string) {
  const box = composer(page);
  await box.fill(text);
  await box.press("Enter");
}

/**
 * Waits until the page is still, so a screenshot shows where a view ends up
 * rather than a frame of its entrance: fonts loaded, every animation and
 * transition that ends has ended (endless ones, like a typing indicator's,
 * are left running), and a frame painted after that.
 */
export async function waitForStill(page: Page, timeoutMs = 15_000) {
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every((a) => a.playState !== "running" || a.effect?.getComputedTiming().endTime === Number.POSITIVE_INFINITY),
    undefined,
    { timeout: timeoutMs }
  );
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => resolve())));
}

/**
 * The docs' screenshot `name` (docs/screenshots/<name>.png) of the page as it
 * is now, taken only when they are refreshed on request
 * (`UPDATE_SCREENSHOTS=1`), so a test run never dirties the tree. Otherwise
 * the test still walks to every screen and checks it, but Chromium encodes
 * no image that nobody reads.
 */
export async function captureScreenshot(page: Page, name: string) {
  if (!process.env.UPDATE_SCREENSHOTS) return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

/**
 * Every control on the page smaller than 44 × 44 pixels (WCAG 2.5.5), for a
 * touch viewport (inside `within`): skips what is off-screen until focused, inert, hidden or
 * inside rendered Markdown.
 */
export function smallTouchTargets(
  page: Page,
  /** Only inside this element (a CSS selector); the whole page without it. */
  within = "body"
): Promise<Array<{ name: string | undefined; w: number; h: number }>> {
  return page.evaluate(
    (root) =>
      [
        ...(document.querySelector(root) ?? document).querySelectorAll<HTMLElement>(
          "button, a[href], input:not([type=hidden]), textarea, select, [role=button], [role=switch]"
        )
      ]
        .filter((el) => {
          if (el.closest("[inert], .sr-only") || el.closest(".markdown, [data-markdown]")) return false;
          const style = getComputedStyle(el);
          if (style.visibility === "hidden" || style.opacity === "0") return false;
          const rect = el.getBoundingClientRect();
          return rect.width > 0 && rect.height > 0;
        })
        .map((el) => {
          const rect = el.getBoundingClientRect();
          return {
            name: el.getAttribute("aria-label") ?? el.textContent?.trim().slice(0, 30),
            w: Math.round(rect.width),
            h: Math.round(rect.height)
          };
        })
        .filter((r) => r.w < 44 || r.h < 44),
    within
  );
}

/**
 * People, each signed in with a browser context of their own, closed after
 * each test whatever happened: `const person = signedInPeople(setup)`, then
 * `const { page, context } = await person("Ann")`.
 */
export function signedInPeople(setup: { readonly browser: Browser }) {
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => {})));
  });
  return async (displayName: string, options: NewUserOptions = {}) => {
    const user = await newUser(setup.browser, { displayName, ...options });
    contexts.push(user.context);
    return user;
  };
}

/**
 * People who open a room, each in a browser context of their own, closed
 * after each test: `const person = peopleIn(setup)`, then
 * `await person("Ann", roomId)` is Ann's page with the room open.
 */
export function peopleIn(setup: { readonly app: E2EApp; readonly browser: Browser }) {
  const person = signedInPeople(setup);
  return async (displayName: string, roomId: string): Promise<Page> => {
    const { page } = await person(displayName);
    await page.goto(roomUrl(setup.app.url, roomId));
    await composer(page).waitFor();
    return page;
  };
}
