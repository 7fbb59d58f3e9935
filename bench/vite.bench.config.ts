/**
 * The app's own Vite config for benchmark servers, with two changes that
 * keep a benchmark from disturbing anything else running in the tree (and
 * the reverse):
 * - no file watching: an edit anywhere would hot-reload the Worker and
 *   reset every Durable Object in the middle of a measurement;
 * - its own cache folder: a different config would otherwise make Vite
 *   re-optimize the shared node_modules/.vite deps under a running test's feet.
 */
import { mergeConfig } from "vite";
import base from "../vite.config.ts";

export default mergeConfig(base, {
  cacheDir: "node_modules/.vite-bench",
  server: { watch: null }
});
