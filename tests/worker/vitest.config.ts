import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import agents from "agents/vite";
import { defineConfig } from "vitest/config";
import { testLayer } from "../support/layer";

// Tests that run inside workerd against the real Worker and Durable Objects.
export default defineConfig({
  plugins: [
    agents(),
    cloudflareTest({ wrangler: { configPath: fileURLToPath(new URL("./wrangler.jsonc", import.meta.url)) } })
  ],
  test: {
    ...testLayer("worker", 1),
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
});
