/**
 * The real app under `vite dev` (Cloudflare plugin: workerd, Durable Objects,
 * facets) on a free port with a private state folder — the same launch as
 * tests/support/dev-server.ts, plus two things the benchmarks need:
 *
 * - `--bypass-lock`: Vite 8 refuses to start a second dev server for the same
 *   project ("Found another Vite dev process"), so without it the benchmark
 *   cannot run while anyone else has a dev server or an integration test up;
 * - the process-group id, to find the workerd children and read their RSS;
 * - no file watching (bench/vite.bench.config.ts): an edit in the tree would
 *   hot-reload the Worker and reset every Durable Object mid-measurement.
 *
 * `preview: true` runs `vite preview` instead (the production build in
 * workerd; run `vite build` first).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, inheritedEnv } from "../../tests/support/dev-server.ts";

export const ROOT = path.resolve(import.meta.dirname, "../..");
/**
 * `--bypass-lock` where this Vite has it (8.4+ refuses a second dev server
 * per project without it; older versions have no lock and no such option).
 */
export const BYPASS_LOCK: string[] = readFileSync(path.join(ROOT, "node_modules/vite/dist/node/cli.js"), "utf8").includes("--bypass-lock")
  ? ["--bypass-lock"]
  : [];
/** The app's vite.config.ts with file watching off (see bench/vite.bench.config.ts). */
const CONFIG = path.join(ROOT, "bench/vite.bench.config.ts");

export interface BenchServer {
  url: string;
  port: number;
  stateDir: string;
  /** pid of the vite process, which leads its own process group */
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

export interface BenchServerOptions {
  vars?: Record<string, string>;
  preview?: boolean;
  /** extra CLI arguments, e.g. ["--outDir", dir] for preview */
  args?: string[];
  /** reuse this state folder and keep it on stop (for restarts) */
  stateDir?: string;
  startTimeoutMs?: number;
}

export async function startBenchServer(options: BenchServerOptions = {}): Promise<BenchServer> {
  const ownsState = !options.stateDir;
  const stateDir = options.stateDir ?? mkdtempSync(path.join(tmpdir(), "rooms-bench-state-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  const viteBin = path.join(ROOT, "node_modules/vite/bin/vite.js");
  const command = options.preview ? "preview" : "dev";
  const child: ChildProcess = spawn(
    process.execPath,
    [viteBin, command, "--config", CONFIG, "--port", String(port), "--strictPort", "--host", "127.0.0.1", ...BYPASS_LOCK, ...(options.args ?? [])],
    {
      cwd: ROOT,
      env: {
        // Never a developer's own provider key or access token: only `vars`.
        ...inheritedEnv(),
        ...options.vars,
        CLOUDFLARE_INCLUDE_PROCESS_ENV: "true",
        ROOMS_STATE_DIR: stateDir,
        BROWSER: "none",
        FORCE_COLOR: "0",
        WRANGLER_SEND_METRICS: "false"
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    }
  );
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      if (ownsState) rmSync(stateDir, { recursive: true, force: true });
      return;
    }
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const signal = (sig: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, sig);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    };
    signal("SIGTERM");
    const timer = setTimeout(() => signal("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
    // workerd may outlive vite by a moment; make sure the group is gone.
    signal("SIGKILL");
    if (ownsState) rmSync(stateDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${command} server exited early:\n${log}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${command} server did not start in time:\n${log}`);
    }
    try {
      const response = await fetch(`${url}/api/rooms`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) break;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { url, port, stateDir, pid: child.pid!, output: () => log, stop };
}
