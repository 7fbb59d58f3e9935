/**
 * How `npm test` splits the layers over two Vitest processes, and how it
 * puts their JSON reports back together. Pure; scripts/test.ts runs it.
 *
 * Why two processes: the worker layer runs every module of every file
 * through Vitest's module runner in the main process, so alone it keeps
 * about one core busy (a 2-CPU machine sat at ~110 % for its last two
 * minutes), while the server layers (integration, the quick benchmark,
 * Chromium) are CPU work of their own. In one process the groups run one
 * after another; side by side, both cores stay busy throughout (on a 2-CPU
 * machine every layer took 612 s instead of about 680 s, same tests).
 */

/** One Vitest process: a name for its report, the projects it runs, and variables of its own. */
export interface TestRun {
  name: string;
  projects: string[];
  env?: Record<string, string>;
}

/**
 * The fast loop (`npm run test:fast`) beside the layers that start servers
 * and browsers. Beside them the fast loop runs four files at a time, not the
 * six it runs alone (tests/support/layer.ts says why).
 */
export const RUNS: readonly TestRun[] = [
  { name: "fast", projects: ["unit", "worker"], env: { ROOMS_FAST_LOOP_WORKERS: "4" } },
  { name: "servers", projects: ["bench", "integration", "e2e"] }
];

/** Where a run's JSON report goes, and the arguments and variables it is started with. */
export interface PlannedRun {
  name: string;
  args: string[];
  report: string | null;
  env?: Record<string, string>;
}

/** The processes to start, and where their merged report goes (null: nowhere). */
export interface TestPlan {
  runs: PlannedRun[];
  output: string | null;
}

/**
 * The processes for `vitest run` with these arguments. Arguments that pick
 * files or projects (a path, a name filter, `--project`) run as they are, in
 * one process: the person chose what to run. Otherwise each run gets the
 * arguments with its own projects, and `--outputFile=<path>` becomes
 * `<path>.<run>.json` for each (merged back into `<path>` by mergeReports).
 */
export function planRuns(args: readonly string[]): TestPlan {
  const picksFiles = args.some((a, i) => a === "--project" || a.startsWith("--project=") || isPositional(args, i));
  const outputAt = args.findIndex((a) => a === "--outputFile" || a.startsWith("--outputFile="));
  if (picksFiles) return { runs: [{ name: "all", args: ["run", ...args], report: null }], output: null };
  const output = outputAt < 0 ? null : args[outputAt].includes("=") ? args[outputAt].split("=")[1] : args[outputAt + 1];
  const rest = args.filter((_, i) => i !== outputAt && !(args[outputAt] === "--outputFile" && i === outputAt + 1));
  const runs = RUNS.map((run) => {
    const report = output ? `${output}.${run.name}.json` : null;
    return {
      name: run.name,
      env: run.env,
      args: [
        "run",
        ...run.projects.flatMap((p) => ["--project", p]),
        ...rest,
        ...(report ? [`--outputFile=${report}`] : [])
      ],
      report
    };
  });
  return { runs, output };
}

/** Options that take the next argument as their value, so it is not a file filter. */
const VALUE_OPTIONS = new Set(["--reporter", "--outputFile", "--project", "--testNamePattern", "-t", "--config", "-c"]);

function isPositional(args: readonly string[], i: number): boolean {
  return !args[i].startsWith("-") && !(i > 0 && VALUE_OPTIONS.has(args[i - 1]));
}

/** The parts of Vitest's JSON report that are read back (.ci/run reads the counts). */
export interface JsonReport {
  numTotalTestSuites: number;
  numPassedTestSuites: number;
  numFailedTestSuites: number;
  numPendingTestSuites: number;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  startTime: number;
  success: boolean;
  testResults: unknown[];
  [other: string]: unknown;
}

const COUNTS = [
  "numTotalTestSuites",
  "numPassedTestSuites",
  "numFailedTestSuites",
  "numPendingTestSuites",
  "numTotalTests",
  "numPassedTests",
  "numFailedTests",
  "numPendingTests",
  "numTodoTests"
] as const;

/**
 * One report for every run: counts summed, results in run order, success
 * only if every run succeeded. A run that wrote no report (it crashed
 * before the end) is `null` and makes the whole unsuccessful, with one
 * failed suite counted for it, so a crash cannot pass as fewer tests.
 */
export function mergeReports(reports: readonly (JsonReport | null)[]): JsonReport {
  const written = reports.filter((r): r is JsonReport => r !== null);
  const missing = reports.length - written.length;
  const merged: JsonReport = {
    ...(written[0] ?? {}),
    ...Object.fromEntries(COUNTS.map((key) => [key, written.reduce((sum, r) => sum + (r[key] ?? 0), 0)])),
    startTime: Math.min(...written.map((r) => r.startTime), Date.now()),
    success: missing === 0 && written.every((r) => r.success),
    testResults: written.flatMap((r) => r.testResults)
  } as JsonReport;
  merged.numFailedTestSuites += missing;
  merged.numTotalTestSuites += missing;
  return merged;
}
