/**
 * The app's Vite config for benchmark servers, with three changes that
 * keep a benchmark from disturbing anything else running in the tree (and
 * the reverse), and production from carrying bench code:
 * - the benchmarks' Worker (bench/app/wrangler.jsonc: the production Worker
 *   plus the bench-only seeding route);
 * - no file watching: an edit anywhere would hot-reload the Worker and
 *   reset every Durable Object in the middle of a measurement;
 * - its own cache folder: a different config would otherwise make Vite
 *   re-optimize the shared node_modules/.vite deps under a running test's feet.
 */
import path from "node:path";
import { mergeConfig } from "vite";
import { appConfig } from "../vite.config.ts";

export default mergeConfig(appConfig(path.join(import.meta.dirname, "app/wrangler.jsonc")), {
  cacheDir: "node_modules/.vite-bench",
  server: { watch: null }
});
