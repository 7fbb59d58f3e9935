import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Browser end-to-end tests: real dev server (workerd), fake OpenAI, Chromium.
export default defineConfig({
  test: {
    // Layers run one after another: the heavy ones each start dev servers.
    sequence: { groupOrder: 3 },
    name: "e2e",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    environment: "node",
    include: ["tests/e2e/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // UI state arrives over sockets: poll generously.
    expect: { poll: { timeout: 15_000, interval: 100 } }
  }
});
