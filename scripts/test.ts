/**
 * `npm test`: every layer, as two Vitest processes side by side
 * (scripts/test-runs.ts says which and why). Arguments go to Vitest; with a
 * file, a filter or `--project` it is one plain `vitest run`.
 *
 *   npm test
 *   npm test -- --reporter=default --reporter=json --outputFile=report.json
 *   npm test -- tests/unit/room-tools.test.ts
 *
 * Each process's output is passed on whole lines at a time, so the two do
 * not cut into each other's lines. With `--outputFile`, the runs' reports are
 * merged into that one file. Exits non-zero when either run fails.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type JsonReport, mergeReports, type PlannedRun, planRuns } from "./test-runs.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));

/** Passes a stream on in whole lines: a line is written once it is complete. */
function forwardLines(from: NodeJS.ReadableStream, to: NodeJS.WriteStream) {
  let pending = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const text = pending + chunk;
    const end = text.lastIndexOf("\n");
    if (end < 0) {
      pending = text;
      return;
    }
    to.write(text.slice(0, end + 1));
    pending = text.slice(end + 1);
  });
  from.on("end", () => {
    if (pending) to.write(`${pending}\n`);
  });
}

function start(run: PlannedRun, alone: boolean): Promise<number> {
  const child = spawn(process.execPath, [vitest, ...run.args], {
    cwd: root,
    // Alone, Vitest owns the terminal; side by side, each writes whole lines
    // (keeping colours when the terminal has them).
    stdio: alone ? "inherit" : ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...(alone || !process.stdout.isTTY ? {} : { FORCE_COLOR: "1" }),
      ...run.env
    }
  });
  if (child.stdout) forwardLines(child.stdout, process.stdout);
  if (child.stderr) forwardLines(child.stderr, process.stderr);
  const stop = () => child.kill("SIGTERM");
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

function readReport(path: string): JsonReport | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as JsonReport;
  } catch {
    return null;
  }
}

const { runs, output } = planRuns(process.argv.slice(2));
const reports = runs.flatMap((run) => (run.report ? [run.report] : []));
// A report left by an interrupted earlier run must not stand in for a run that crashes now.
for (const report of reports) rmSync(report, { force: true });
const codes = await Promise.all(runs.map((run) => start(run, runs.length === 1)));
if (output && reports.length > 0) {
  const merged = mergeReports(reports.map(readReport));
  writeFileSync(output, JSON.stringify(merged));
  for (const report of reports) rmSync(report, { force: true });
  console.log(`All runs: ${merged.numPassedTests} tests passed, ${merged.numFailedTests} failed; report in ${output}`);
}
process.exit(codes.some((code) => code !== 0) ? 1 : 0);
