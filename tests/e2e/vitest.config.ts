import { defineConfig } from "vitest/config";
import { testLayer } from "../support/layer.ts";

// Browser end-to-end tests: the app's production build under `vite preview`
// (workerd; tests/support/app-build.ts), fake OpenAI, Chromium's headless
// shell. Two files at a time (the layer is bound by two cores' CPU: four
// at a time took as long), each on its Vitest worker's shared server (the app
// host starts one per worker: every page opens the `default` workspace, so
// files on one server take turns); a few files run a server of their own.
export default defineConfig({
  test: {
    ...testLayer("e2e", 3),
    environment: "node",
    globalSetup: ["tests/support/app-host.ts", "tests/support/bench-app-host.ts"],
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // UI state arrives over sockets: poll generously.
    expect: { poll: { timeout: 15_000, interval: 100 } }
  }
});
