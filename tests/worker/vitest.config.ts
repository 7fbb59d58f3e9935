import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import agents from "agents/vite";
import { defineConfig } from "vitest/config";

// Tests that run inside workerd against the real Worker and Durable Objects.
export default defineConfig({
  plugins: [
    agents(),
    cloudflareTest({ wrangler: { configPath: fileURLToPath(new URL("./wrangler.jsonc", import.meta.url)) } })
  ],
  test: {
    // Layers run one after another: the heavy ones each start dev servers.
    sequence: { groupOrder: 1 },
    name: "worker",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["tests/worker/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
});
