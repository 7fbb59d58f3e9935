/**
 * Shared plumbing for the browser tests: one Chromium per file, a fresh
 * context per user, the app's dev server with the fake OpenAI provider, and
 * small REST helpers to set rooms up without clicking.
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { Api } from "../../bench/lib/client";
import { seedViaRoute } from "../../bench/lib/seed";
import type { MessagePage, RoomDetail } from "../../src/shared/protocol";
import { launchBrowser } from "../support/browser";
import { restClient } from "../support/rest-client";
import { startTestApp as startKitApp, type TestApp } from "../support/test-app";

export { messageText } from "../support/chat-protocol";
export type { TestApp } from "../support/test-app";
export { uniqueName, waitFor } from "../support/wait";
export { launchBrowser };

const ROOT = path.resolve(import.meta.dirname, "../..");
/**
 * The README's screenshots are refreshed only on request
 * (`UPDATE_SCREENSHOTS=1 npm test`), so a test run never dirties the tree.
 */
const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS
  ? path.join(ROOT, "docs/screenshots")
  : path.join(tmpdir(), "rooms-screenshots");

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

/**
 * One dev server per test file, answering through the fake provider, with no
 * rate limits (tests set rooms up over REST faster than a person would) and
 * the client's dependencies optimised before the first page.
 */
export async function startTestApp(extraVars: Record<string, string> = {}): Promise<TestApp> {
  const app = await startKitApp({
    vars: { RATE_LIMIT_SCALE: "0", ...extraVars },
    warmClient: true,
    // Within the e2e hook timeout (180 s), so a slow start fails the hook rather than leaking a server.
    startTimeoutMs: 170_000
  });
  currentAppUrl = app.url;
  return app;
}

/**
 * One app and one Chromium for a whole test file, started together in
 * beforeAll and stopped in afterAll. Read `.app` and `.browser` inside tests.
 */
export function useAppAndBrowser(extraVars: Record<string, string> = {}): {
  readonly app: TestApp;
  readonly browser: Browser;
} {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestApp(extraVars), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
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

export const roomUrl = (base: string, id: string) => `${base}/sub/chat-room/${id}`;

/** The conversation log and its messages. */
export const log = (page: Page) => page.getByRole("log");
export const messageRows = (page: Page, role?: "user" | "assistant") =>
  page.locator(role ? `[data-message-id][data-role="${role}"]` : "[data-message-id]");
export const composer = (page: Page) => page.getByRole("textbox", { name: /^Message / });

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

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
