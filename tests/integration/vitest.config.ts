import { defineConfig } from "vitest/config";
import { SERVER_LAYER_WORKERS, testLayer } from "../support/layer.ts";

// Tests that start the real app (its production build in workerd, under
// `vite preview`: tests/support/app-build.ts) and drive it
// from outside over HTTP and WebSockets, with a local OpenAI-compatible
// server on loopback. Files share a dev server per configuration
// (useSharedApp, served by the app host); a file that must restart the
// server or needs variables of its own starts one (useTestApp).
export default defineConfig({
  test: {
    ...testLayer("integration", 2),
    environment: "node",
    // A Vitest worker imports the kit and its dependencies once for all its
    // files, not once per file: `npm run test:integration` on 2 CPUs
    // took 72.5 s and 96 CPU-s instead of 76 s and 106 (one sitting, 79 tests).
    // Files therefore share the kit's module state; a file that changes
    // process-wide state (environment variables, globals) restores it after.
    isolate: false,
    globalSetup: ["tests/support/app-host.ts"],
    // With the bench layer (one worker count per group: tests/support/layer.ts).
    maxWorkers: SERVER_LAYER_WORKERS,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Polled state crosses the app's server and Durable Objects: more than vitest's default 1 s.
    expect: { poll: { timeout: 10_000, interval: 50 } }
  }
});
