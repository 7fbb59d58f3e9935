import { defineConfig } from "vitest/config";
import { testLayer } from "../support/layer.ts";

// Tests that start the real dev server (workerd through Vite) and drive it
// from outside over HTTP and WebSockets, with a local OpenAI-compatible
// server on loopback. Files share a dev server per configuration
// (useSharedApp, served by the app host); a file that must restart the
// server or needs variables of its own starts one (useTestApp).
export default defineConfig({
  test: {
    ...testLayer("integration", 2),
    environment: "node",
    globalSetup: ["tests/support/app-host.ts"],
    // Two cores cannot boot several dev servers at once.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000
  }
});
