/**
 * The framework-floor Worker under the same Vite plugins as the app
 * (the agents SDK's plugin then cloudflare(), so the same workerd build and Node dev
 * proxy), with the app's bench settings: a private state folder and Vite
 * cache per server (ROOMS_STATE_DIR, set by tests/support/dev-server.ts), no
 * inspector (unless ROOMS_INSPECTOR_PORT), no file watching. Started by bench/sections/floor.ts with
 * `vite dev`, or built and served with `vite preview` for --target preview.
 */
import path from "node:path";
import { cloudflare } from "@cloudflare/vite-plugin";
import { defineConfig } from "vite";
import { agentsPlugins } from "../../scripts/agents-vite.ts";

const stateDir = process.env.ROOMS_STATE_DIR;

// As the app's vite.config.ts: no download of a sample `request.cf` at start
// (nothing here reads it; offline it printed a stack trace into the bench log).
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

export default defineConfig({
  root: import.meta.dirname,
  cacheDir: stateDir ? path.join(stateDir, "vite-cache") : "../../node_modules/.vite-bench-floor",
  plugins: [
    ...agentsPlugins(),
    cloudflare({
      configPath: "./wrangler.jsonc",
      persistState: stateDir ? { path: stateDir } : false,
      // No inspector, unless a profile asks for one (bench/profile-turn.ts --floor).
      inspectorPort: Number(process.env.ROOMS_INSPECTOR_PORT) || false
    })
  ],
  build: { sourcemap: false },
  server: { watch: null }
});
