/**
 * The app for benchmarks: tests/support/dev-server.ts with the bench Vite
 * config (bench/vite.bench.config.ts: no file watching, so an edit elsewhere
 * in the tree cannot hot-reload the Worker and reset every Durable Object
 * mid-measurement). `buildDir` serves a production build instead
 * (`vite preview` of `buildBenchApp`'s output). The server's `pid` leads the
 * process group the memory section reads workerd's RSS from.
 */
import { BENCH_APP_CONFIG, buildForPreview, previewOf } from "../../tests/support/app-build.ts";
import { type DevServer, ROOT, startDevServer } from "../../tests/support/dev-server.ts";

export { ROOT };

export type BenchServer = DevServer;

export interface BenchServerOptions {
  vars?: Record<string, string>;
  /** serve this production build (buildBenchApp) under `vite preview` instead of `vite dev` */
  buildDir?: string;
  /** reuse this state folder and keep it on stop (for restarts) */
  stateDir?: string;
  startTimeoutMs?: number;
}

/** `vite build` of the benchmarks' app (the app plus its seeding route) into `outDir`, for `buildDir`. */
export function buildBenchApp(outDir: string): Promise<void> {
  return buildForPreview(BENCH_APP_CONFIG, outDir);
}

export function startBenchServer(options: BenchServerOptions = {}): Promise<BenchServer> {
  return startDevServer({
    vars: options.vars,
    stateDir: options.stateDir,
    startTimeoutMs: options.startTimeoutMs ?? 120_000,
    ...(options.buildDir
      ? previewOf(options.buildDir, BENCH_APP_CONFIG)
      : { command: "dev", configFile: BENCH_APP_CONFIG })
  });
}
