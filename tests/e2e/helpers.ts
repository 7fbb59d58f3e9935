/**
 * Shared plumbing for the browser tests: one Chromium per file, a fresh
 * context per user, the app's dev server with the fake OpenAI provider, and
 * small REST helpers to set rooms up without clicking.
 */
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import type { ChatMessage, MessagePage, RoomDetail } from "../../src/shared/protocol";
import { type DevServer, startDevServer } from "../support/dev-server";
import { type FakeOpenAI, startFakeOpenAI } from "../support/fake-openai";

const ROOT = path.resolve(import.meta.dirname, "../..");
/**
 * The README's screenshots are refreshed only on request
 * (`UPDATE_SCREENSHOTS=1 npm test`), so a test run never dirties the tree.
 */
const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS
  ? path.join(ROOT, "docs/screenshots")
  : path.join(tmpdir(), "rooms-screenshots");

const CHROMIUM_CANDIDATES = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome"
];

function chromiumPath(): string {
  const found = CHROMIUM_CANDIDATES.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error("No Chromium found: apt-get install -y chromium, or set CHROMIUM_PATH.");
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  });
}

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

export interface TestApp {
  server: DevServer;
  fake: FakeOpenAI;
  url: string;
  stop(): Promise<void>;
}

/** One dev server per test file, answering through the fake provider. */
export async function startTestApp(extraVars: Record<string, string> = {}): Promise<TestApp> {
  const fake = await startFakeOpenAI();
  const server = await startDevServer({
    // A shared, busy machine can take minutes to optimise deps and start workerd.
    startTimeoutMs: 170_000,
    vars: {
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test-key",
      OPENAI_MODEL: "fake-model",
      // Tests set rooms up over REST faster than a person would.
      RATE_LIMIT_SCALE: "0",
      ...extraVars
    }
  });
  currentAppUrl = server.url;
  // First page load makes Vite optimise client deps; do it once up front.
  await fetch(`${server.url}/`).then((r) => r.text());
  await fetch(`${server.url}/src/client/main.tsx`)
    .then((r) => r.text())
    .catch(() => "");
  return {
    server,
    fake,
    url: server.url,
    async stop() {
      await server.stop().catch(() => {});
      await fake.close().catch(() => {});
    }
  };
}

let counter = 0;
/** Unique per run, so tests sharing a server never see each other's rooms by name. */
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

export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix} ${Date.now().toString(36)}${counter}`;
}

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export const rest = {
  createRoom: (base: string, body: { name: string; systemPrompt?: string }) =>
    fetch(`${base}/api/rooms`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    }).then((r) => json<RoomDetail>(r)),
  deleteRoom: (base: string, id: string) =>
    fetch(`${base}/api/rooms/${id}`, { method: "DELETE" }).then((r) => json<void>(r)),
  getRoom: (base: string, id: string) => fetch(`${base}/api/rooms/${id}`).then((r) => json<RoomDetail>(r)),
  messages: (base: string, id: string, limit = 200) =>
    fetch(`${base}/api/rooms/${id}/messages?limit=${limit}`).then((r) => json<MessagePage>(r)),
  /** Sends through the REST path and waits for the answer. */
  send: (base: string, id: string, text: string, author = "API") =>
    fetch(`${base}/api/rooms/${id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text, author })
    }).then((r) => json<{ status: string }>(r))
};

export function textOf(message: ChatMessage): string {
  return message.parts
    .filter((p) => p.type === "text")
    .map((p) => String(p.text))
    .join("");
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

/** Poll a condition (for things outside the page, e.g. REST state). */
export async function eventually<T>(
  fn: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await fn();
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < deadline);
  return last;
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
