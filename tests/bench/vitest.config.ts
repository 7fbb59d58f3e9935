import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Runs the benchmark in quick mode as a child process, so `npm run bench`
// cannot rot. It asserts that every section produced numbers, never on times.
export default defineConfig({
  test: {
    // Layers run one after another: the heavy ones each start dev servers.
    sequence: { groupOrder: 4 },
    root: fileURLToPath(new URL("../..", import.meta.url)),
    name: "bench",
    environment: "node",
    include: ["tests/bench/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 240_000
  }
});
