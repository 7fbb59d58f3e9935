import { defineConfig } from "vitest/config";
import { GROUP_ONE_WORKERS, testLayer } from "../support/layer.ts";

// Tests that start the real app (its production build in workerd, under
// `vite preview`: tests/support/app-build.ts) and drive it
// from outside over HTTP and WebSockets, with a local OpenAI-compatible
// server on loopback. Files share a dev server per configuration
// (useSharedApp, served by the app host); a file that must restart the
// server or needs variables of its own starts one (useTestApp).
export default defineConfig({
  test: {
    ...testLayer("integration", 1),
    environment: "node",
    globalSetup: ["tests/support/app-host.ts"],
    // With the unit, worker and bench layers (Vitest wants one worker count
    // per group): a file mostly waits on its server and the fake provider.
    maxWorkers: GROUP_ONE_WORKERS,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Polled state crosses the app's server and Durable Objects: more than vitest's default 1 s.
    expect: { poll: { timeout: 10_000, interval: 50 } }
  }
});
