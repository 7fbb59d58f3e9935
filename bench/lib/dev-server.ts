/**
 * The app for benchmarks: tests/support/dev-server.ts with the bench Vite
 * config (bench/vite.bench.config.ts: no file watching, so an edit elsewhere
 * in the tree cannot hot-reload the Worker and reset every Durable Object
 * mid-measurement). `preview: true` serves the production build instead
 * (`vite preview`; run `vite build` first). The server's `pid` leads the
 * process group the memory section reads workerd's RSS from.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { type DevServer, ROOT, startDevServer } from "../../tests/support/dev-server.ts";

export { ROOT };

const CONFIG = path.join(ROOT, "bench/vite.bench.config.ts");

export type BenchServer = DevServer;

export interface BenchServerOptions {
  vars?: Record<string, string>;
  preview?: boolean;
  /** extra CLI arguments, e.g. ["--outDir", dir] for preview */
  args?: string[];
  /** reuse this state folder and keep it on stop (for restarts) */
  stateDir?: string;
  startTimeoutMs?: number;
}

/** `vite build` of the benchmarks' app (the app plus its seeding route) into `outDir`, for `preview: true`. */
export function buildBenchApp(outDir: string): Promise<void> {
  return viteBuild(CONFIG, outDir);
}

/** `vite build` with a bench Vite config into `outDir` (the app's, or bench/floor's). */
export async function viteBuild(configFile: string, outDir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      path.join(ROOT, "node_modules/vite/bin/vite.js"),
      "build",
      "--config",
      configFile,
      "--outDir",
      outDir,
      "--logLevel",
      "warn"
    ],
    {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: "0", WRANGLER_SEND_METRICS: "false" },
      maxBuffer: 64 * 1024 * 1024
    }
  );
}

export function startBenchServer(options: BenchServerOptions = {}): Promise<BenchServer> {
  return startDevServer({
    vars: options.vars,
    stateDir: options.stateDir,
    startTimeoutMs: options.startTimeoutMs ?? 120_000,
    command: options.preview ? "preview" : "dev",
    configFile: CONFIG,
    args: options.args
  });
}
