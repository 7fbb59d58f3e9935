import { cloudflare } from "@cloudflare/vite-plugin";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import agents from "agents/vite";
import { defineConfig } from "vite";

export default defineConfig({
  // agents() before cloudflare(): it compiles the TC39 decorators agents uses.
  plugins: [agents(), react(), cloudflare(), tailwindcss()],
  build: { sourcemap: false }
});
