import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Plain Node unit tests for pure modules (no workerd).
export default defineConfig({
  test: {
    // Layers run one after another: the heavy ones each start dev servers.
    sequence: { groupOrder: 0 },
    root: fileURLToPath(new URL("../..", import.meta.url)),
    name: "unit",
    environment: "node",
    include: ["tests/unit/**/*.test.ts"],
    // Property tests (fast-check, hundreds of runs) are CPU-bound: 5 s is
    // plenty on an idle machine and not on a busy CI runner. Waits on
    // conditions carry their own deadlines.
    testTimeout: 30_000
  }
});
