import { defineConfig } from "vitest/config";
import { GROUP_ONE_WORKERS, testLayer } from "../support/layer.ts";

// Plain Node unit tests for pure modules (no workerd).
export default defineConfig({
  test: {
    // With the worker layer (same group and worker count): unit files are
    // CPU work and worker files mostly wait, so they share the cores well.
    ...testLayer("unit", 1),
    maxWorkers: GROUP_ONE_WORKERS,
    environment: "node",
    // Property tests (fast-check, hundreds of runs) are CPU-bound: 5 s is
    // plenty on an idle machine and not on a busy CI runner. Waits on
    // conditions carry their own deadlines.
    testTimeout: 30_000
  }
});
