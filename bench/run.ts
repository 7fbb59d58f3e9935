/**
 * Rooms benchmarks.
 *
 *   npm run bench                      full run (~10-15 min on 2 cores)
 *   npm run bench -- --quick           reduced sizes, the plain-app sections on one shared
 *                                      server: checks that every section runs
 *   npm run bench -- --only relay,memory
 *   npm run bench -- --only floor      Rooms beside a bare AIChatAgent facet (the framework's floor)
 *   npm run bench -- --only scroll --target preview   scrolling back through 1,000 messages, production build
 *   npm run bench -- --out results.json   write the results there instead
 *   npm run bench -- --target preview  the production build under `vite preview`
 *                                      instead of `vite dev` (no Vite module runner
 *                                      inside workerd; see BENCHMARKS.md)
 *   npm run bench -- --target preview --build DIR   serve that build of the bench app
 *                                      (tests/support/app-build.ts) instead of building one
 *   npm run bench -- --local-tracing   keep the Vite plugin's local trace collection on
 *
 * Local tracing is off unless asked for: the Cloudflare Vite plugin (and so
 * miniflare) turns on its local trace store by default (X_LOCAL_OBSERVABILITY),
 * which traces every call, span and fetch in workerd and costs a chat turn
 * ~27 ms of workerd CPU (BENCHMARKS.md). A deployment pays that only with
 * Workers traces switched on, which wrangler.jsonc does not do, so the
 * default run measures what a deployment pays. X_LOCAL_OBSERVABILITY set in
 * the environment wins over both.
 *
 * Every section starts its own servers (the app under `vite dev` with a
 * fast fake model, see bench/lib), measures from Node clients on loopback,
 * and stops them; in --quick the sections that need only a plain app share
 * one (lib/section.ts). A full run writes its results to
 * bench/results/<mode>[-<sections>]-<timestamp>.json, one file per run; a
 * --quick run writes outside the tree (bench/lib/results-path.ts says why);
 * --out names the file instead. A summary is printed at the end.
 * Exit code 1 when any section failed (its error is in the results).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { buildBenchApp, ROOT } from "./lib/dev-server.ts";
import { resultsPath, runMode } from "./lib/results-path.ts";
import {
  appTarget,
  type BenchContext,
  emptyResult,
  type Section,
  type SectionResult,
  sharing,
  stopSharedApp
} from "./lib/section.ts";
import { fmt } from "./lib/stats.ts";
import { client } from "./sections/client.ts";
import { concurrency } from "./sections/concurrency.ts";
import { crowd } from "./sections/crowd.ts";
import { files } from "./sections/files.ts";
import { findshare } from "./sections/findshare.ts";
import { floor } from "./sections/floor.ts";
import { history } from "./sections/history.ts";
import { memory } from "./sections/memory.ts";
import { panel } from "./sections/panel.ts";
import { registry } from "./sections/registry.ts";
import { relay } from "./sections/relay.ts";
import { scroll } from "./sections/scroll.ts";
import { summaries } from "./sections/summaries.ts";
import { throughput } from "./sections/throughput.ts";

export const SECTIONS: Array<{ key: string; title: string; run: Section }> = [
  { key: "relay", title: "1. Relay overhead", run: relay },
  { key: "throughput", title: "2. Streaming throughput", run: throughput },
  { key: "history", title: "3. History: opening a room", run: history },
  { key: "registry", title: "4. Registry scale", run: registry },
  { key: "concurrency", title: "5. Concurrency", run: concurrency },
  { key: "memory", title: "6. Memory", run: memory },
  { key: "client", title: "7. Client", run: client },
  { key: "panel", title: "8. Persona panel: eight answers at once, twenty viewers", run: panel },
  { key: "findshare", title: "9. Search across rooms and export", run: findshare },
  { key: "crowd", title: "10. A crowded workspace: one room's turn, 100 sockets open in other rooms", run: crowd },
  { key: "floor", title: "11. The framework's floor: a bare AIChatAgent facet beside Rooms", run: floor },
  { key: "files", title: "12. Files: uploads, indexing a PDF, turns in a room of 200 documents", run: files },
  { key: "scroll", title: "13. Scrolling back through 1,000 messages in the browser", run: scroll },
  {
    key: "summaries",
    title: "14. Summaries: turns in a summarised 10,000-message room, and one summary's cost",
    run: summaries
  }
];

function arg(name: string): string | undefined {
  const argv = process.argv.slice(2);
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const a = argv[i];
  return a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[i + 1];
}

function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}

function machine() {
  const cpuinfo = (() => {
    try {
      return readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return "";
    }
  })();
  const pkgVersion = (p: string) => {
    try {
      return JSON.parse(readFileSync(path.join(ROOT, "node_modules", p, "package.json"), "utf8")).version as string;
    } catch {
      return "unknown";
    }
  };
  return {
    nproc: Number(sh("nproc", [])) || cpus().length,
    cpuModel: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown",
    memTotalGiB: Number((totalmem() / 1024 ** 3).toFixed(1)),
    freeH: sh("free", ["-h"]),
    kernel: sh("uname", ["-r"]),
    node: process.version,
    workerdApp: sh(path.join(ROOT, "node_modules/workerd/bin/workerd"), ["--version"]),
    workerdWrangler: sh(path.join(ROOT, "node_modules/wrangler/node_modules/workerd/bin/workerd"), ["--version"]),
    vite: pkgVersion("vite"),
    cloudflareVitePlugin: pkgVersion("@cloudflare/vite-plugin"),
    wrangler: pkgVersion("wrangler"),
    agents: pkgVersion("agents"),
    aiChat: pkgVersion("@cloudflare/ai-chat"),
    gitCommit: sh("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]),
    gitDirty: sh("git", ["-C", ROOT, "status", "--porcelain", "--", "src"]) !== ""
  };
}

async function main() {
  const quick = process.argv.includes("--quick");
  const only = arg("only")
    ?.split(",")
    .map((s) => s.trim());
  const target = arg("target") ?? "dev";
  if (target !== "dev" && target !== "preview") throw new Error(`--target must be dev or preview, not ${target}`);
  const localTracing = process.argv.includes("--local-tracing");
  // Every server a section starts inherits this process's environment.
  process.env.X_LOCAL_OBSERVABILITY ??= localTracing ? "true" : "false";
  const mode = runMode({ quick, target });
  const started = Date.now();
  const ctx: BenchContext = {
    quick,
    target,
    log: (m) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${m}\n`)
  };
  const results: Record<string, SectionResult & { error?: string }> = {};
  const unknown = only?.filter((k) => !SECTIONS.some((s) => s.key === k)) ?? [];
  if (unknown.length)
    throw new Error(`unknown section(s): ${unknown.join(", ")}; known: ${SECTIONS.map((s) => s.key).join(", ")}`);
  let failed = false;
  const givenBuild = arg("build");
  if (givenBuild && target !== "preview") throw new Error("--build needs --target preview");
  if (givenBuild) appTarget.buildDir = path.resolve(givenBuild);
  else if (target === "preview") {
    const buildDir = mkdtempSync(path.join(tmpdir(), "rooms-bench-app-build-"));
    appTarget.buildDir = buildDir;
    ctx.log("building the app for vite preview …");
    const t0 = performance.now();
    await buildBenchApp(buildDir);
    appTarget.buildSeconds = (performance.now() - t0) / 1000;
  }
  // A quick run's plain-app sections share one server (lib/section.ts says why).
  sharing.quick = quick;
  for (const section of SECTIONS) {
    if (only && !only.includes(section.key)) continue;
    ctx.log(`${section.title} …`);
    const result: SectionResult & { error?: string } = emptyResult(section.title);
    const t0 = Date.now();
    try {
      await section.run(ctx, result);
    } catch (error) {
      failed = true;
      result.error = error instanceof Error ? `${error.message}\n${error.stack ?? ""}`.slice(0, 4000) : String(error);
      ctx.log(`${section.title} FAILED: ${result.error}`);
    }
    result.durationMs = Date.now() - t0;
    result.loadavg.after = loadavg()[0];
    results[section.key] = result;
    ctx.log(`${section.title} done in ${(result.durationMs / 1000).toFixed(0)} s`);
  }
  await stopSharedApp();
  if (appTarget.buildDir && !givenBuild) rmSync(appTarget.buildDir, { recursive: true, force: true });
  const report = {
    mode,
    target,
    command: `npm run bench${quick || only || target !== "dev" || localTracing ? " --" : ""}${quick ? " --quick" : ""}${only ? ` --only ${only.join(",")}` : ""}${target !== "dev" ? ` --target ${target}` : ""}${localTracing ? " --local-tracing" : ""}`,
    localTracing: process.env.X_LOCAL_OBSERVABILITY !== "false",
    startedAt: new Date(started).toISOString(),
    durationS: Math.round((Date.now() - started) / 1000),
    machine: machine(),
    sections: results
  };
  const resultsFile = resultsPath(
    { quick, only, target, localTracing: report.localTracing, startedAt: new Date(started) },
    { root: ROOT, tmp: tmpdir() },
    arg("out")
  );
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);

  const lines: string[] = [];
  for (const [key, r] of Object.entries(results)) {
    lines.push(
      `\n${r.title} (${key}, ${(r.durationMs / 1000).toFixed(0)} s, load ${r.loadavg.before.toFixed(2)} → ${r.loadavg.after.toFixed(2)})`
    );
    if (r.error) lines.push(`  FAILED: ${r.error.split("\n")[0]}`);
    for (const [name, f] of Object.entries(r.figures))
      lines.push(`  ${name}: ${"median" in f ? fmt(f) : `${f.value} ${f.unit}`}`);
    for (const s of r.skipped) lines.push(`  skipped: ${s}`);
  }
  process.stdout.write(`${lines.join("\n")}\n\nresults: ${resultsFile}\n`);
  process.exitCode = failed ? 1 : 0;
}

await main();
