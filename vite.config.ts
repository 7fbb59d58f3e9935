import path from "node:path";
import { cloudflare } from "@cloudflare/vite-plugin";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig, type UserConfig } from "vite";
import { agentsPlugins } from "./scripts/agents-vite.ts";
import { DEV_SECURITY_HEADERS, SECURITY_HEADERS } from "./src/server/http/security-headers.ts";

/**
 * `@/…` is `src/…`, as tsconfig.json's `paths` says, for the app, the
 * Worker and the tests (tests/support/layer.ts) alike.
 */
const SRC_ALIAS = { "@": path.join(import.meta.dirname, "src") };

/**
 * The app's Vite config for a given Worker config: wrangler.jsonc for the
 * app itself, bench/app/wrangler.jsonc for the benchmarks' Worker.
 */
export function appConfig(wranglerConfig?: string): UserConfig {
  // Miniflare downloads a sample `request.cf` object at every start unless
  // told not to, and prints a stack trace when offline. The app reads nothing
  // from `request.cf`, so it gets miniflare's built-in placeholder instead:
  // no network at start. Set CLOUDFLARE_CF_FETCH_ENABLED=true to fetch it.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  // The plugin's local trace store is on unless told otherwise, and it makes
  // every turn under `npm start` cost about 1.6 times the workerd CPU and
  // answer its first token 1.7 times later (bench `--only summaries`, three
  // runs each way). Rooms keeps its own traces (the room's trace view, OTLP
  // export), which do not depend on it: off unless X_LOCAL_OBSERVABILITY=true.
  process.env.X_LOCAL_OBSERVABILITY ??= "false";
  // Tests and benchmarks start their own dev servers: each gets a private
  // state folder, dependency cache and no inspector port, so several can run
  // side by side.
  const stateDir = process.env.ROOMS_STATE_DIR;
  return {
    // Dev servers started side by side must not re-optimise one shared cache.
    ...(stateDir ? { cacheDir: path.join(stateDir, "vite-cache") } : {}),
    // The agents SDK's plugin (less its Babel pass: scripts/agents-vite.ts) before cloudflare().
    plugins: [
      ...agentsPlugins(),
      react(),
      cloudflare({
        ...(wranglerConfig ? { configPath: wranglerConfig } : {}),
        persistState: stateDir ? { path: stateDir } : true,
        // Tests and benchmarks run many servers: no inspector, unless a
        // profile asks for one (bench/profile-turn.ts sets ROOMS_INSPECTOR_PORT).
        ...(stateDir ? { inspectorPort: Number(process.env.ROOMS_INSPECTOR_PORT) || (false as const) } : {})
      }),
      tailwindcss()
    ],
    resolve: { alias: SRC_ALIAS },
    build: { sourcemap: false },
    // The built client gets these from public/_headers (Workers static assets).
    server: { headers: { ...DEV_SECURITY_HEADERS } },
    preview: { headers: { ...SECURITY_HEADERS } }
  };
}

export default defineConfig(appConfig());
