import path from "node:path";
import { cloudflare } from "@cloudflare/vite-plugin";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import agents from "agents/vite";
import { defineConfig } from "vite";

// Tests and benchmarks start their own dev servers: each gets a private
// state folder, dependency cache and no inspector port, so several can run
// side by side.
const stateDir = process.env.ROOMS_STATE_DIR;

export default defineConfig({
  // Dev servers started side by side must not re-optimise one shared cache.
  ...(stateDir ? { cacheDir: path.join(stateDir, "vite-cache") } : {}),
  // agents() before cloudflare(): it compiles the TC39 decorators agents uses.
  plugins: [
    agents(),
    react(),
    cloudflare({
      persistState: stateDir ? { path: stateDir } : true,
      ...(stateDir ? { inspectorPort: false as const } : {})
    }),
    tailwindcss()
  ],
  build: { sourcemap: false }
});
