import { defineConfig } from "vitest/config";
import { SERVER_LAYER_WORKERS, testLayer } from "../support/layer.ts";

// Runs the benchmark in quick mode as a child process, so `npm run bench`
// cannot rot. It asserts that every section produced numbers, never on times.
// The benchmarks' Worker is built once per run (tests/support/bench-app-host.ts,
// shared with the browser layer) and served under `vite preview`.
export default defineConfig({
  test: {
    ...testLayer("bench", 2),
    environment: "node",
    // Vitest wants one worker count per group; this layer is one file.
    maxWorkers: SERVER_LAYER_WORKERS,
    globalSetup: ["tests/support/bench-app-host.ts"],
    testTimeout: 900_000,
    hookTimeout: 240_000
  }
});
