import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { agentsPlugins } from "../../scripts/agents-vite.ts";
import { FAST_LOOP_WORKERS, testLayer } from "../support/layer.ts";

// Tests that run inside workerd against the real Worker and Durable Objects.
export default defineConfig({
  plugins: [
    ...agentsPlugins(),
    cloudflareTest({ wrangler: { configPath: fileURLToPath(new URL("./wrangler.jsonc", import.meta.url)) } })
  ],
  test: {
    ...testLayer("worker", 1),
    // A worker file spends most of its time waiting (the offline model paces
    // its chunks, rooms report in the background), not on the CPU: at three
    // files at once two cores were still 60 % idle. Vitest's default on two
    // cores is one. (One count for the whole group: tests/support/layer.ts.)
    maxWorkers: FAST_LOOP_WORKERS,
    // Each worker keeps one workerd and its loaded modules for all the files
    // it runs, instead of booting workerd and importing the app per file
    // (which was most of the layer's CPU). Files therefore share Durable
    // Objects: each works in its own workspace (uniqueName()), never counts
    // what another file could have made, and restores what it spies on.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What a test polls for (a frame, a count, a purge) crosses Durable Objects:
    // vitest's default of 1 s is one slow moment on a loaded 2-CPU machine.
    expect: { poll: { timeout: 10_000, interval: 50 } }
  }
});
