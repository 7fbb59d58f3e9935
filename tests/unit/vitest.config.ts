import { defineConfig } from "vitest/config";
import { testLayer } from "../support/layer";

// Plain Node unit tests for pure modules (no workerd).
export default defineConfig({
  test: {
    ...testLayer("unit", 0),
    environment: "node",
    // Property tests (fast-check, hundreds of runs) are CPU-bound: 5 s is
    // plenty on an idle machine and not on a busy CI runner. Waits on
    // conditions carry their own deadlines.
    testTimeout: 30_000
  }
});
