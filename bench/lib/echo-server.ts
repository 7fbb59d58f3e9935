/** Starts the baseline echo worker (bench/echo-worker) under wrangler dev, vite dev or vite preview. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildForPreview } from "../../tests/support/app-build.ts";
import { freePort, ROOT, stopProcessGroup } from "../../tests/support/dev-server.ts";

const CONFIG = path.join(ROOT, "bench/echo-worker/vite.config.ts");

export interface EchoServer {
  kind: "wrangler" | "vite";
  url: string;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** `preview` (vite only): build the echo worker and serve the build with `vite preview`. */
export async function startEchoServer(
  kind: "wrangler" | "vite",
  opts: { preview?: boolean } = {}
): Promise<EchoServer> {
  const port = await freePort();
  const persist = mkdtempSync(path.join(tmpdir(), "rooms-bench-echo-"));
  const vite = path.join(ROOT, "node_modules/vite/bin/vite.js");
  const preview = kind === "vite" && opts.preview === true;
  const buildDir = path.join(persist, "dist");
  if (preview) await buildForPreview(CONFIG, buildDir);
  const args =
    kind === "wrangler"
      ? [
          path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
          "dev",
          "--config",
          "bench/echo-worker/wrangler.jsonc",
          "--port",
          String(port),
          "--ip",
          "127.0.0.1",
          "--persist-to",
          persist,
          "--inspector-port",
          String(await freePort())
        ]
      : [
          vite,
          // A build is served rooted in its folder (tests/support/app-build.ts says why).
          ...(preview ? ["preview", buildDir] : ["dev"]),
          "--config",
          CONFIG,
          "--port",
          String(port),
          "--strictPort",
          "--host",
          "127.0.0.1"
        ];
  let log = "";
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", BROWSER: "none", FORCE_COLOR: "0", CI: "true" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true
  });
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcessGroup(child);
    rmSync(persist, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`echo worker (${kind}) exited early:\n${log}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`echo worker (${kind}) did not start:\n${log}`);
    }
    try {
      const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(3_000) });
      if (response.ok && (await response.text()).startsWith("echo worker")) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { kind, url, pid: child.pid!, output: () => log, stop };
}
