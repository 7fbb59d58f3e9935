/**
 * The echo worker under the same Vite plugin (and so the same workerd
 * build and the same Node dev proxy) as the app, so the relay baseline
 * differs from the app only by the app's own code. The brief's baseline,
 * `wrangler dev --config bench/echo-worker/wrangler.jsonc`, runs it under
 * wrangler's (newer) workerd and wrangler's proxy; the benchmark runs both.
 */
import { cloudflare } from "@cloudflare/vite-plugin";
import { defineConfig } from "vite";

// As the app's vite.config.ts: no download of a sample `request.cf` at start
// (nothing here reads it; offline it printed a stack trace into the bench log).
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

export default defineConfig({
  root: import.meta.dirname,
  cacheDir: "../../node_modules/.vite-bench-echo",
  plugins: [cloudflare({ configPath: "./wrangler.jsonc", persistState: false, inspectorPort: false })],
  server: { watch: null }
});
