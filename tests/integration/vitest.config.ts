import { defineConfig } from "vitest/config";
import { testLayer } from "../support/layer.ts";

// Tests that start the real dev server (workerd through Vite) and drive it
// from outside over HTTP and WebSockets, with a local OpenAI-compatible
// server on loopback.
export default defineConfig({
  test: {
    ...testLayer("integration", 2),
    environment: "node",
    // Each file starts its own dev server; two cores cannot run many at once.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000
  }
});
