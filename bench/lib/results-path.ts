/**
 * Where a benchmark run writes its results: one JSON file per run, named by
 * what ran and when, so no run overwrites another.
 *
 * - A full run (with or without --only, --target, --local-tracing) goes to
 *   bench/results/, the dated raw results BENCHMARKS.md quotes; commit the
 *   files whose figures it quotes, and history stays in git.
 * - A --quick run goes outside the tree (<tmpdir>/rooms-bench/): it is a
 *   smoke run (the test suite makes one), and its figures are never quoted,
 *   so it must never leave the tree dirty or replace a full run's file.
 * - --out names the file and wins over both.
 */
import path from "node:path";

export interface RunShape {
  quick: boolean;
  /** Sections asked for with --only, in the order given. */
  only?: readonly string[];
  /** `dev` or `preview`. */
  target: string;
  localTracing: boolean;
  startedAt: Date;
}

/** `full`, `quick-preview`, …: the mode a results file records. */
export function runMode(run: Pick<RunShape, "quick" | "target">): string {
  return `${run.quick ? "quick" : "full"}${run.target === "preview" ? "-preview" : ""}`;
}

/** e.g. `full-preview-relay+history-2026-12-01T12-06-23-000Z.json`. */
export function resultsFileName(run: RunShape): string {
  const stamp = run.startedAt.toISOString().replace(/[:.]/g, "-");
  const only = run.only?.length ? `-${run.only.join("+")}` : "";
  const tracing = run.localTracing ? "-local-tracing" : "";
  return `${runMode(run)}${only}${tracing}-${stamp}.json`;
}

export function resultsPath(run: RunShape, dirs: { root: string; tmp: string }, out?: string): string {
  if (out) return path.resolve(out);
  const dir = run.quick ? path.join(dirs.tmp, "rooms-bench") : path.join(dirs.root, "bench", "results");
  return path.join(dir, resultsFileName(run));
}
