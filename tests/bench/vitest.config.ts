import { defineConfig } from "vitest/config";
import { testLayer } from "../support/layer.ts";

// Runs the benchmark in quick mode as a child process, so `npm run bench`
// cannot rot. It asserts that every section produced numbers, never on times.
export default defineConfig({
  test: {
    ...testLayer("bench", 3),
    environment: "node",
    testTimeout: 900_000,
    hookTimeout: 240_000
  }
});
