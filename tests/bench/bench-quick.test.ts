/**
 * `npm run bench -- --quick` end to end: it must exit 0 and write a results
 * file in which every section is present, did not fail, and reports only
 * finite numbers. Times are not asserted (they depend on the machine);
 * correctness figures that must be zero are. It runs against the
 * production build (`--target preview`, the run's build of the bench app):
 * a server boots in seconds there, against 15–30 s under `vite dev`.
 *
 * One file, though it is the server layers' longest: split into two quick
 * runs at once (its sections in two halves), each half took 174–195 s
 * instead of about 110, the integration files beside them ran longer, and
 * `.ci/run` took 11m37s against 10m31s: that stretch of the suite is bound
 * by two cores' CPU, not by waiting.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SECTIONS = [
  "relay",
  "throughput",
  "history",
  "registry",
  "concurrency",
  "memory",
  "client",
  "panel",
  "findshare",
  "crowd",
  "floor",
  "files",
  "scroll",
  "summaries"
];

/** Well past a quick run on a loaded two-core machine, well before the layer's 900 s test timeout. */
const QUICK_RUN_LIMIT_MS = 600_000;

const dir = mkdtempSync(path.join(tmpdir(), "rooms-bench-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runQuick(out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--experimental-strip-types",
        "--no-warnings",
        "bench/run.ts",
        "--quick",
        "--target",
        "preview",
        "--build",
        inject("benchAppBuild"),
        "--out",
        out
      ],
      {
        cwd: ROOT,
        env: { ...process.env, FORCE_COLOR: "0" },
        stdio: ["ignore", "pipe", "pipe"]
      }
    );
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    // A run that hangs is stopped well before the test's timeout, so the
    // failure shows how far it got (a quick run takes about two minutes).
    const hung = setTimeout(() => {
      output += `\n[test] the quick run took longer than ${QUICK_RUN_LIMIT_MS / 1000} s and was stopped\n`;
      child.kill("SIGKILL");
    }, QUICK_RUN_LIMIT_MS);
    child.on("close", (code) => {
      clearTimeout(hung);
      resolve({ code, output });
    });
  });
}

describe("npm run bench -- --quick", () => {
  it("runs every section and writes finite figures", async () => {
    const out = path.join(dir, "quick.json");
    const { code, output } = await runQuick(out);
    // A section that failed names itself and its error here (the run goes
    // on and writes its results); a run that stopped shows its output.
    const report = existsSync(out) ? JSON.parse(readFileSync(out, "utf8")) : { sections: {} };
    for (const key of SECTIONS) expect(report.sections[key]?.error, `${key} failed`).toBeUndefined();
    expect(code, output.slice(-4000)).toBe(0);

    expect(report.mode).toBe("quick-preview");
    expect(report.target).toBe("preview");
    expect(report.machine.nproc).toBeGreaterThan(0);
    expect(Object.keys(report.sections).sort()).toEqual([...SECTIONS].sort());
    // Where a quick run's time goes, for whoever keeps the suite fast.
    console.log(
      `bench --quick: ${report.durationS} s; ${SECTIONS.map((k) => `${k} ${Math.round(report.sections[k].durationMs / 1000)} s`).join(", ")}`
    );
    for (const key of SECTIONS) {
      const section = report.sections[key];
      const figures = Object.entries(section.figures) as Array<[string, any]>;
      expect(figures.length, `${key} has no figures`).toBeGreaterThan(0);
      for (const [name, figure] of figures) {
        const numbers = "median" in figure ? [figure.median, figure.min, figure.max] : [figure.value];
        for (const n of numbers) expect(Number.isFinite(n), `${key} / ${name} = ${JSON.stringify(figure)}`).toBe(true);
        expect(typeof figure.unit).toBe("string");
      }
    }

    const c = report.sections.concurrency.figures;
    expect(c["lost messages (not stored)"].value).toBe(0);
    expect(c["duplicated messages"].value).toBe(0);
    expect(c["unanswered messages"].value).toBe(0);
    expect(c["requests that failed or never finished"].value).toBe(0);
    expect(report.sections.throughput.figures["1 client: missing chunks"].value).toBe(0);
  });
});
