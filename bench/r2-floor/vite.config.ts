/** The R2 floor Worker (bench/r2-floor) under the same Vite plugin and workerd as the app. */
import { cloudflare } from "@cloudflare/vite-plugin";
import { defineConfig } from "vite";

// As the app's vite.config.ts: no download of a sample `request.cf` at start.
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

export default defineConfig({
  root: import.meta.dirname,
  cacheDir: "../../node_modules/.vite-bench-r2-floor",
  plugins: [cloudflare({ configPath: "./wrangler.jsonc", persistState: false, inspectorPort: false })],
  server: { watch: null }
});
