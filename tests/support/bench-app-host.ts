/**
 * Vitest global setup of the browser layer: the benchmarks' Worker (the app
 * plus its bench-only seeding route, bench/app) built once per run, for the
 * files that seed rooms of thousands of messages (`inject("benchAppBuild")`).
 * Served by `startBenchServer({ buildDir })` like the app's own build.
 */
import type { TestProject } from "vitest/node";
import { buildBenchAppOnce } from "./app-build";

export default async function setup(project: TestProject) {
  project.provide("benchAppBuild", await buildBenchAppOnce());
}
