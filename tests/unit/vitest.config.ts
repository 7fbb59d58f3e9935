import { defineConfig } from "vitest/config";
import { FAST_LOOP_WORKERS, testLayer } from "../support/layer.ts";

// Plain Node unit tests for pure modules (no workerd).
export default defineConfig({
  test: {
    // With the worker layer (same process, group and worker count: the fast
    // loop): unit files are CPU work and worker files mostly wait.
    ...testLayer("unit", 1),
    maxWorkers: FAST_LOOP_WORKERS,
    environment: "node",
    // Property tests (fast-check, hundreds of runs) are CPU-bound: 5 s is
    // plenty on an idle machine and not on a busy CI runner. Waits on
    // conditions carry their own deadlines.
    testTimeout: 30_000,
    // Each worker imports the modules once for all the files it runs, not
    // once per file: `npm run test:unit` on 2 CPUs took 16 s and 30 CPU-s
    // instead of 30 s and 57 (same sitting, 665 tests; the same with the
    // files shuffled three ways). Files therefore share module state: a file
    // that fakes timers or spies restores them after (afterEach or finally).
    isolate: false
  }
});
