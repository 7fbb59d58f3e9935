/**
 * The transcript of a long room in a real browser, on the production build:
 * how many elements the page holds after reading a 1,000-message room back
 * to its start, and the frame rate and long tasks while scrolling it and
 * while a long answer streams in at the bottom.
 *
 *   node --experimental-strip-types --no-warnings bench/transcript-frames.ts
 *     [--messages 1000] [--chars 8000] [--runs 3] [--out file.json]
 *
 * Builds the app (bench/vite.bench.config.ts: the app plus its seeding
 * route) into a private folder, serves it with `vite preview` (the built
 * Worker in workerd), seeds the room through the bench route, and drives
 * headless Chromium (1280×800). Frames are timed in the page with
 * requestAnimationFrame; long tasks (> 50 ms on the main thread) with a
 * PerformanceObserver. The answer comes from the fake OpenAI server
 * (tests/support/fake-openai.ts): `--chars` characters, 4 a chunk, one
 * chunk every 8 ms. Results print as a table and go to --out (default:
 * <tmpdir>/rooms-bench/transcript-<timestamp>.json), never into the tree.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { findChromium, launchBrowser, NO_CHROMIUM } from "../tests/support/browser.ts";
import { startFakeOpenAI } from "../tests/support/fake-openai.ts";
import { Api } from "./lib/client.ts";
import { type BenchServer, buildBenchApp, startBenchServer } from "./lib/dev-server.ts";
import { appVars } from "./lib/section.ts";
import { seedViaRoute } from "./lib/seed.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const MESSAGES = arg("messages", 1000);
const CHARS = arg("chars", 8000);
const RUNS = arg("runs", 3);
const outIndex = process.argv.indexOf("--out");
const OUT =
  outIndex >= 0
    ? process.argv[outIndex + 1]
    : path.join(tmpdir(), "rooms-bench", `transcript-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);

interface FrameStats {
  seconds: number;
  frames: number;
  fps: number;
  p95FrameMs: number;
  worstFrameMs: number;
  framesOver50ms: number;
  longTasks: number;
  longestTaskMs: number;
}

/** Start timing frames and long tasks in the page. */
async function startFrames(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as {
      __frames: number[];
      __longTasks: number[];
      __framesOn: boolean;
      __observer?: PerformanceObserver;
    };
    w.__frames = [];
    w.__longTasks = [];
    w.__framesOn = true;
    let last = performance.now();
    const tick = (t: number) => {
      w.__frames.push(t - last);
      last = t;
      if (w.__framesOn) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(tick);
    });
    w.__observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__longTasks.push(entry.duration);
    });
    w.__observer.observe({ type: "longtask" });
  });
}

async function stopFrames(page: Page): Promise<FrameStats> {
  const { frames, longTasks } = await page.evaluate(() => {
    const w = window as unknown as {
      __frames: number[];
      __longTasks: number[];
      __framesOn: boolean;
      __observer?: PerformanceObserver;
    };
    w.__framesOn = false;
    w.__observer?.disconnect();
    return { frames: w.__frames, longTasks: w.__longTasks };
  });
  const total = frames.reduce((s, f) => s + f, 0);
  const sorted = [...frames].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    seconds: round(total / 1000),
    frames: frames.length,
    fps: round(frames.length / (total / 1000)),
    p95FrameMs: round(sorted[Math.floor(sorted.length * 0.95)] ?? 0),
    worstFrameMs: round(sorted.at(-1) ?? 0),
    framesOver50ms: frames.filter((f) => f > 50).length,
    longTasks: longTasks.length,
    longestTaskMs: round(Math.max(0, ...longTasks))
  };
}

const elementCount = (page: Page) => page.evaluate(() => document.querySelectorAll("*").length);

async function main() {
  if (!findChromium()) throw new Error(NO_CHROMIUM);
  const outDir = mkdtempSync(path.join(tmpdir(), "rooms-bench-build-"));
  const fake = await startFakeOpenAI();
  let server: BenchServer | undefined;
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) },
    messages: MESSAGES,
    answerChars: CHARS,
    runs: [] as unknown[]
  };
  try {
    console.log("building the production bundle…");
    await buildBenchApp(outDir);
    server = await startBenchServer({
      buildDir: outDir,
      vars: appVars(fake)
    });
    const base = server.url;
    const api = new Api(base);
    const browser = await launchBrowser();
    try {
      for (let run = 0; run < RUNS; run++) {
        const room = await api.createRoom("default", `Transcript bench ${run}`);
        const seeded = await seedViaRoute(api, "default", room.id, MESSAGES);
        if (!seeded.ok) throw new Error(`seed: ${seeded.reason}`);

        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const signedIn = await context.request.post(`${base}/api/session`, { data: { name: "Bench" } });
        if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()}`);
        const page = await context.newPage();
        page.setDefaultTimeout(60_000);
        await page.goto(`${base}/sub/chat-room/${room.id}`);
        const log = page.getByRole("log");
        await page
          .locator("[data-message-id]")
          .getByText(`#${MESSAGES - 1}.`)
          .first()
          .waitFor();
        const atOpen = await elementCount(page);

        // Read back to the start, one page per scroll to the top.
        const start = log.getByText(/This is the start of/);
        const readStarted = performance.now();
        const loaded = () =>
          page.evaluate(() =>
            Number(document.querySelector("[data-loaded-messages]")?.getAttribute("data-loaded-messages"))
          );
        while (!(await start.isVisible())) {
          const before = await loaded();
          await log.evaluate((el) => el.scrollTo({ top: 0 }));
          // The next page is in (or the start is reached), not a guess at how long that takes.
          await page.waitForFunction(
            (count) =>
              Number(document.querySelector("[data-loaded-messages]")?.getAttribute("data-loaded-messages")) > count ||
              (document.body.textContent ?? "").includes("This is the start of"),
            before,
            { timeout: 60_000 }
          );
          if (performance.now() - readStarted > 300_000) throw new Error("reading back took over 5 minutes");
        }
        const atStart = await elementCount(page);

        // Scroll the whole room back down, 120 px a frame, timing frames.
        await startFrames(page);
        await log.evaluate(
          (el) =>
            new Promise<void>((resolve) => {
              const step = () => {
                el.scrollTop += 120;
                if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) resolve();
                else requestAnimationFrame(step);
              };
              requestAnimationFrame(step);
            })
        );
        const scrolling = await stopFrames(page);

        // At the bottom, a long answer streams in.
        fake.setScenario({
          kind: "text",
          text: Array.from({ length: Math.ceil(CHARS / 24) }, (_, i) => `token${i} of the answer. `)
            .join("")
            .slice(0, CHARS),
          chunkSize: 4,
          chunkDelayMs: 8
        });
        const box = page.getByRole("textbox", { name: /^Message / });
        await box.fill("Write a long answer");
        await box.press("Enter");
        const streaming = page.locator('article[data-role="assistant"][aria-busy="true"]');
        await streaming.waitFor();
        await startFrames(page);
        await streaming.waitFor({ state: "detached", timeout: 300_000 });
        const streamingStats = await stopFrames(page);
        const afterStream = await elementCount(page);
        fake.setScenario({ kind: "text" });
        await context.close();

        const entry = { elements: { atOpen, atStart, afterStream }, scrolling, streaming: streamingStats };
        (results.runs as unknown[]).push(entry);
        console.log(`run ${run + 1}/${RUNS}`, JSON.stringify(entry));
      }
    } finally {
      await browser.close();
    }
  } finally {
    await server?.stop();
    await fake.close();
    rmSync(outDir, { recursive: true, force: true });
  }
  mkdirSync(path.dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results: ${OUT}`);
}

await main();
