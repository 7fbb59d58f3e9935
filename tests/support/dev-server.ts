/**
 * Starts the real app (`vite dev` with the Cloudflare plugin, so workerd,
 * Durable Objects and facets) on a free port with its own state folder, for
 * integration tests, browser tests and benchmarks. `restart()` kills the
 * process and starts it again on the same state, which is how tests evict
 * every Durable Object from memory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { workerdEntryUrl } from "./workerd-socket.ts";

export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface DevServer {
  /** Where the app answers: Vite's address, or workerd's own with `direct` (it may change on a restart). */
  readonly url: string;
  port: number;
  stateDir: string;
  /** pid of the vite process, which leads its own process group (workerd is in it). */
  readonly pid: number;
  /** Everything the server printed, for failure messages. */
  output(): string;
  restart(opts?: { hard?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  /** Worker variables, e.g. OPENAI_BASE_URL of a fake provider. */
  vars?: Record<string, string>;
  stateDir?: string;
  startTimeoutMs?: number;
  /** `preview` serves the production build (run `vite build` first). */
  command?: "dev" | "preview";
  /** Another Vite config than the app's (benchmarks turn file watching off). */
  configFile?: string;
  /** Extra CLI arguments, e.g. ["--outDir", dir] for preview. */
  args?: string[];
  /**
   * With `preview`: `url` is workerd's own socket, not Vite's Node proxy
   * (tests/support/workerd-socket.ts says why). Its port changes on every
   * start, so a server that restarts under open pages or a kept URL must not
   * ask for it.
   */
  direct?: boolean;
}

function signalGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Stops a process started with `detached: true` and everything it spawned
 * (vite starts workerd as a child): the signal, SIGKILL after 5 s, and a
 * last SIGKILL for children that outlive their parent.
 */
export async function stopProcessGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    signalGroup(child.pid!, signal);
    const timer = setTimeout(() => signalGroup(child.pid!, "SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  signalGroup(child.pid!, "SIGKILL");
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const stateDir = options.stateDir ?? mkdtempSync(path.join(tmpdir(), "rooms-state-"));
  const ownsState = !options.stateDir;
  let port = await freePort();
  let viteUrl = `http://127.0.0.1:${port}`;
  let url = viteUrl;
  let child: ChildProcess | null = null;
  let log = "";

  const launch = async () => {
    log = "";
    const viteBin = path.join(ROOT, "node_modules/vite/bin/vite.js");
    const config = options.configFile ? ["--config", options.configFile] : [];
    const args = [
      viteBin,
      options.command ?? "dev",
      ...config,
      "--port",
      String(port),
      "--strictPort",
      "--host",
      "127.0.0.1",
      ...(options.args ?? [])
    ];
    child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: {
        ...inheritedEnv(),
        ...options.vars,
        // Worker variables come from process.env (no .dev.vars in tests).
        CLOUDFLARE_INCLUDE_PROCESS_ENV: "true",
        ROOMS_STATE_DIR: stateDir,
        BROWSER: "none",
        // The Vite plugin's local trace store (on by default) traces every
        // call inside workerd and doubles a turn's CPU; no test reads it, and
        // on a loaded CI machine that CPU is what makes timing flaky.
        X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
        FORCE_COLOR: "0",
        WRANGLER_SEND_METRICS: "false"
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    });
    child.stdout?.on("data", (d) => (log += d));
    child.stderr?.on("data", (d) => (log += d));
    await waitUntilServing(viteUrl, child, () => log, options.startTimeoutMs ?? 90_000);
    const direct = options.direct && options.command === "preview" ? await workerdEntryUrl(child.pid!) : null;
    url = direct ?? viteUrl;
  };

  const kill = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (proc) await stopProcessGroup(proc, signal);
  };

  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (error) {
      await kill("SIGKILL");
      // The port was free when asked, but another process (the other test
      // run's servers, workerd's own sockets) can take it before Vite
      // listens: ask for another.
      if (attempt >= 3 || !String(error).includes("already in use")) throw error;
      port = await freePort();
      viteUrl = `http://127.0.0.1:${port}`;
    }
  }
  return {
    get url() {
      return url;
    },
    port,
    stateDir,
    get pid() {
      return child!.pid!;
    },
    output: () => log,
    async restart({ hard = true } = {}) {
      await kill(hard ? "SIGKILL" : "SIGTERM");
      await launch();
    },
    async stop() {
      await kill("SIGTERM");
      if (ownsState) rmSync(stateDir, { recursive: true, force: true });
    }
  };
}

/**
 * Every variable of this process becomes a Worker variable, so a developer's
 * own provider key or access token must not leak into a test server: only
 * what a test passes in `vars` configures the app.
 */
const APP_VARIABLES =
  /^(OPENAI_|ACCESS_TOKEN$|ALLOWED_ORIGINS$|RATE_LIMIT_SCALE$|CONTEXT_TOKEN_BUDGET$|MODEL_IDLE_TIMEOUT_MS$|ROOMS_)/;

function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !APP_VARIABLES.test(key)));
}

async function waitUntilServing(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`dev server exited early:\n${output()}`);
    try {
      // The API answering means workerd and the Durable Objects are up,
      // not just Vite.
      const response = await fetch(`${url}/api/rooms`, { signal: AbortSignal.timeout(5_000) });
      // 401: up, and guarded by an access token.
      if (response.ok || response.status === 401) return;
    } catch {
      // Not listening yet: poll again.
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`dev server did not start within ${timeoutMs} ms:\n${output()}`);
}
