import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Plain Node unit tests for pure modules (no workerd).
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    name: "unit",
    environment: "node",
    include: ["tests/unit/**/*.test.ts"],
  },
});
