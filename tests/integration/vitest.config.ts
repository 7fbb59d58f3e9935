import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests that start the real dev server (workerd through Vite) and drive it
// from outside over HTTP and WebSockets, with a local OpenAI-compatible
// server on loopback.
export default defineConfig({
  test: {
    // Layers run one after another: the heavy ones each start dev servers.
    sequence: { groupOrder: 2 },
    root: fileURLToPath(new URL("../..", import.meta.url)),
    name: "integration",
    environment: "node",
    include: ["tests/integration/**/*.test.ts"],
    // Each file starts its own dev server; two cores cannot run many at once.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000
  }
});
