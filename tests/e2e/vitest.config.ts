import { defineConfig } from "vitest/config";
import { testLayer } from "../support/layer.ts";

// Browser end-to-end tests: real dev server (workerd), fake OpenAI, Chromium.
export default defineConfig({
  test: {
    ...testLayer("e2e", 3),
    environment: "node",
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // UI state arrives over sockets: poll generously.
    expect: { poll: { timeout: 15_000, interval: 100 } }
  }
});
