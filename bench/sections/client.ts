/**
 * 7. Client: initial JS and CSS of the production build (bytes and gzip),
 * and the time until headless Chromium shows the room list.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { findChromium, launchBrowser, NO_CHROMIUM } from "../../tests/support/browser.ts";
import { Api } from "../lib/client.ts";
import { type BenchServer, buildBenchApp, startBenchServer } from "../lib/dev-server.ts";
import { appTarget, type Section, value } from "../lib/section.ts";
import { summarize } from "../lib/stats.ts";

export const client: Section = async (ctx, out) => {
  const runs = ctx.quick ? 2 : 10;
  out.notes.push(
    "Build: `vite build` of the app's own config (bench/vite.bench.config.ts: same plugins) into a private folder; initial = what dist/client/index.html loads before any script runs (module scripts, modulepreload links, stylesheets). gzip is node:zlib at its default level 6.",
    `Page: \`vite preview\` of that build (the built Worker in workerd, assets served by it), a fresh browser context per run (cold cache), ${runs} runs; time = navigation start → the name of a room created for the run is visible text on the page (a MutationObserver in the page, so it measures the page, not the test's polling).`
  );
  // Under `--target preview` run.ts has built the app already (and timed it).
  const ownBuild = !appTarget.buildDir;
  const outDir = appTarget.buildDir ?? mkdtempSync(path.join(tmpdir(), "rooms-bench-build-"));
  let preview: BenchServer | undefined;
  try {
    const t0 = performance.now();
    if (ownBuild) await buildBenchApp(outDir);
    const buildSeconds = ownBuild ? (performance.now() - t0) / 1000 : appTarget.buildSeconds;
    if (buildSeconds === undefined) out.skipped.push("production build time: the build was given (--build)");
    else out.figures["production build time (setup)"] = value(buildSeconds, "s", 1);
    const clientDir = path.join(outDir, "client");
    const html = readFileSync(path.join(clientDir, "index.html"), "utf8");
    const initial = initialAssets(html);
    let js = 0;
    let jsGz = 0;
    let css = 0;
    let cssGz = 0;
    for (const asset of initial) {
      const file = path.join(clientDir, asset.replace(/^\//, ""));
      const bytes = readFileSync(file);
      const gz = gzipSync(bytes).length;
      if (asset.endsWith(".css")) {
        css += bytes.length;
        cssGz += gz;
      } else {
        js += bytes.length;
        jsGz += gz;
      }
    }
    out.figures["initial JS"] = value(js / 1024, "KiB", 1);
    out.figures["initial JS, gzip"] = value(jsGz / 1024, "KiB", 1);
    out.figures["initial CSS"] = value(css / 1024, "KiB", 1);
    out.figures["initial CSS, gzip"] = value(cssGz / 1024, "KiB", 1);
    const all = listFiles(path.join(clientDir, "assets"));
    const allJs = all.filter((f) => f.endsWith(".js"));
    out.figures["all JS in the build (lazy chunks included)"] = value(
      allJs.reduce((s, f) => s + statSync(f).size, 0) / 1024,
      "KiB",
      0
    );
    out.figures["JS files in the build"] = value(allJs.length, "files", 0);
    out.notes.push(`initial assets: ${initial.join(", ")}`);

    if (!findChromium()) {
      out.skipped.push(`page load: ${NO_CHROMIUM}`);
      return;
    }
    preview = await startBenchServer({ buildDir: outDir });
    const api = new Api(preview.url);
    const browser = await launchBrowser();
    try {
      const shown: number[] = [];
      const dcl: number[] = [];
      const fcp: number[] = [];
      // One untimed run warms the server (workerd compiles the Worker on first use).
      for (let i = -1; i < runs; i++) {
        const name = `Bench room ${Math.random().toString(36).slice(2, 10)}`;
        await api.createRoom("default", name);
        const context = await browser.newContext();
        // A first visit asks for a name: sign in first, so the room list is what shows.
        const signedIn = await context.request.post(`${preview.url}/api/session`, { data: { name: "Bench" } });
        if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()}`);
        const page = await context.newPage();
        await page.addInitScript((needle: string) => {
          const w = window as unknown as { __benchShownAt?: number };
          const check = () => {
            if (w.__benchShownAt === undefined && document.body && document.body.textContent.includes(needle)) {
              w.__benchShownAt = performance.now();
              observer.disconnect();
            }
          };
          const observer = new MutationObserver(check);
          observer.observe(document, { childList: true, subtree: true, characterData: true });
        }, name);
        await page.goto(preview.url, { waitUntil: "commit" });
        await page.waitForFunction(
          () => (window as unknown as { __benchShownAt?: number }).__benchShownAt !== undefined,
          undefined,
          { timeout: 30_000, polling: 50 }
        );
        const timing = await page.evaluate(() => {
          const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
          const paint = performance.getEntriesByName("first-contentful-paint")[0];
          return {
            shown: (window as unknown as { __benchShownAt: number }).__benchShownAt,
            dcl: nav?.domContentLoadedEventEnd ?? Number.NaN,
            fcp: paint?.startTime ?? Number.NaN
          };
        });
        await context.close();
        if (i < 0) continue;
        shown.push(timing.shown);
        dcl.push(timing.dcl);
        if (Number.isFinite(timing.fcp)) fcp.push(timing.fcp);
      }
      out.figures["page: navigation → room list shows the new room"] = summarize(shown, "ms");
      out.figures["page: DOMContentLoaded"] = summarize(dcl, "ms");
      if (fcp.length) out.figures["page: first contentful paint"] = summarize(fcp, "ms");
    } finally {
      await browser.close();
    }
  } finally {
    await preview?.stop();
    if (ownBuild) rmSync(outDir, { recursive: true, force: true });
  }
};

/** Scripts, module preloads and stylesheets referenced by index.html. */
function initialAssets(html: string): string[] {
  const found = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*>/g)) found.add(m[1]);
  for (const m of html.matchAll(/<link\b[^>]*>/g)) {
    const tag = m[0];
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (!href) continue;
    if (/\brel="(stylesheet|modulepreload)"/.test(tag)) found.add(href);
  }
  return [...found].filter((a) => a.startsWith("/"));
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out;
}
