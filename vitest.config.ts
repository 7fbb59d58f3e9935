import { defineConfig } from "vitest/config";

// `npm test` runs every layer: unit (Node), worker (workerd),
// integration (real dev server over HTTP and WebSockets), e2e (Chromium).
export default defineConfig({
  test: {
    projects: [
      "tests/unit/vitest.config.ts",
      "tests/worker/vitest.config.ts",
      "tests/integration/vitest.config.ts",
      "tests/e2e/vitest.config.ts",
      "tests/bench/vitest.config.ts"
    ]
  }
});
