/**
 * Vitest global setup of the browser and bench layers: the benchmarks'
 * Worker (the app plus its bench-only seeding route, bench/app) built once
 * per run (`inject("benchAppBuild")`), for the browser files that seed rooms
 * of thousands of messages (served with `previewOf(dir, BENCH_APP_CONFIG)`)
 * and for the quick benchmark (`bench/run.ts --build dir`).
 */
import type { TestProject } from "vitest/node";
import { buildBenchAppOnce } from "./app-build";

export default async function setup(project: TestProject) {
  project.provide("benchAppBuild", await buildBenchAppOnce());
}
