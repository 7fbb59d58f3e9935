/**
 * How `npm test` splits the layers over two Vitest processes
 * (scripts/test-runs.ts): every layer is in exactly one run, a person's own
 * choice of files or projects runs as it is, and the two reports merge into
 * one whose counts a crashed run cannot make look better.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type JsonReport, mergeReports, planRuns, RUNS } from "../../scripts/test-runs";

const report = (passed: number, failed: number, files: string[]): JsonReport => ({
  numTotalTestSuites: files.length,
  numPassedTestSuites: failed ? files.length - 1 : files.length,
  numFailedTestSuites: failed ? 1 : 0,
  numPendingTestSuites: 0,
  numTotalTests: passed + failed,
  numPassedTests: passed,
  numFailedTests: failed,
  numPendingTests: 0,
  numTodoTests: 0,
  startTime: 1_000 + passed,
  success: failed === 0,
  testResults: files.map((name) => ({ name }))
});

describe("npm test's runs", () => {
  it("runs every test layer (each folder of tests/ with a Vitest config) in exactly one run", () => {
    const layers = readdirSync(new URL("../", import.meta.url), { withFileTypes: true })
      .filter(
        (d) => d.isDirectory() && readdirSync(new URL(`../${d.name}/`, import.meta.url)).includes("vitest.config.ts")
      )
      .map((d) => d.name)
      .sort();
    const projects = RUNS.flatMap((run) => run.projects);
    expect([...projects].sort()).toEqual(layers);
    expect(new Set(projects).size).toBe(projects.length);
  });

  it("gives each run its projects, the other arguments, and a report file of its own", () => {
    const { runs, output } = planRuns(["--reporter=default", "--reporter=json", "--outputFile=.ci/results.json"]);
    expect(output).toBe(".ci/results.json");
    expect(runs.map((r) => r.args)).toEqual([
      [
        "run",
        "--project",
        "unit",
        "--project",
        "worker",
        "--reporter=default",
        "--reporter=json",
        "--outputFile=.ci/results.json.fast.json"
      ],
      [
        "run",
        "--project",
        "bench",
        "--project",
        "integration",
        "--project",
        "e2e",
        "--reporter=default",
        "--reporter=json",
        "--outputFile=.ci/results.json.servers.json"
      ]
    ]);
    expect(planRuns(["--reporter", "json", "--outputFile", "out.json"]).runs[0].args.slice(-3)).toEqual([
      "--reporter",
      "json",
      "--outputFile=out.json.fast.json"
    ]);
  });

  it("runs the fast loop four files at a time beside the server layers, and leaves a person's own run as it is", () => {
    expect(planRuns([]).runs.map((r) => [r.name, r.env?.ROOMS_FAST_LOOP_WORKERS])).toEqual([
      ["fast", "4"],
      ["servers", undefined]
    ]);
    expect(planRuns(["--project", "worker"]).runs[0].env).toBeUndefined();
  });

  it("runs a person's choice of files or projects as one plain vitest run", () => {
    for (const args of [
      ["tests/unit/room-tools.test.ts"],
      ["--project", "unit"],
      ["--project=e2e", "--bail=1"],
      ["--reporter", "dot", "search"]
    ]) {
      expect(planRuns(args)).toEqual({ runs: [{ name: "all", args: ["run", ...args], report: null }], output: null });
    }
    expect(planRuns([]).runs).toHaveLength(RUNS.length);
  });

  it("merges the reports: counts summed, results kept, success only when both succeeded", () => {
    const merged = mergeReports([report(10, 0, ["a", "b"]), report(5, 1, ["c"])]);
    expect(merged).toMatchObject({
      numPassedTests: 15,
      numFailedTests: 1,
      numTotalTests: 16,
      numFailedTestSuites: 1,
      numTotalTestSuites: 3,
      startTime: 1_005,
      success: false
    });
    expect(merged.testResults).toEqual([{ name: "a" }, { name: "b" }, { name: "c" }]);
    expect(mergeReports([report(10, 0, ["a"]), report(5, 0, ["b"])]).success).toBe(true);
  });

  it("counts a run that wrote no report as a failed suite, never as a pass", () => {
    const merged = mergeReports([report(10, 0, ["a"]), null]);
    expect(merged.success).toBe(false);
    expect(merged.numFailedTestSuites).toBe(1);
    expect(merged.numPassedTests).toBe(10);
  });
});
