/**
 * Vitest global setup of the layers that drive the app (integration,
 * e2e): one app server (and one fake provider) per distinct configuration,
 * shared by every test file of the layer that asks for it, instead of a boot
 * per file. It runs in Vitest's main process and serves a small
 * HTTP API on loopback; test files reach it through `useSharedApp()`
 * (tests/support/shared-app.ts), which gets its address from `inject`.
 *
 * A server starts when the first file asks for it (a run of files that need
 * none starts none), and stops when no file has held it for a while or at
 * the end of the run. Files stay apart by working in workspaces of their own
 * and by scripting the shared fake only with keys of their own
 * (tests/support/README.md).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { TestProject } from "vitest/node";
import { buildAppOnce } from "./app-build";
import { SHARED_APP_VARS, type SharedAppOptions, sharedAppKey } from "./shared-app-options";
import { startTestApp, type TestApp } from "./test-app";

declare module "vitest" {
  interface ProvidedContext {
    /** Where the layer's app host listens (tests/support/app-host.ts). */
    appHost: string;
  }
}

/** What a file gets: where the app and its fake provider answer. */
export interface SharedAppAddress {
  url: string;
  /** Null for an app on the offline model. */
  fakeOrigin: string | null;
}

interface Entry {
  options: SharedAppOptions;
  holders: number;
  app: Promise<TestApp>;
  idle?: ReturnType<typeof setTimeout>;
}

/** A server no file held for this long stops (the next file that asks boots it again). */
const IDLE_STOP_MS = 90_000;

export default async function setup(project: TestProject) {
  const entries = new Map<string, Entry>();
  // Every server of the layer serves the app's production build (app-build.ts).
  const buildDir = await buildAppOnce();
  project.provide("appBuild", buildDir);

  const stop = async (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    clearTimeout(entry.idle);
    await entry.app.then((app) => app.stop()).catch(() => {});
  };

  const acquire = (options: SharedAppOptions): Promise<TestApp> => {
    const key = sharedAppKey(options);
    let entry = entries.get(key);
    if (!entry) {
      const app = startTestApp({
        provider: options.provider ?? "fake",
        vars: { ...SHARED_APP_VARS, ...options.vars },
        // A shared server never restarts, so its files talk to workerd itself.
        buildDir
      });
      entry = { options, holders: 0, app };
      entries.set(key, entry);
    }
    entry.holders += 1;
    clearTimeout(entry.idle);
    entry.idle = undefined;
    return entry.app;
  };

  const release = (options: SharedAppOptions) => {
    const key = sharedAppKey(options);
    const entry = entries.get(key);
    if (!entry) return;
    entry.holders = Math.max(0, entry.holders - 1);
    if (entry.holders === 0) entry.idle = setTimeout(() => void stop(key), IDLE_STOP_MS);
  };

  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const options = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as SharedAppOptions;
      if (req.method === "POST" && req.url === "/acquire") {
        const app = await acquire(options);
        const address: SharedAppAddress = {
          url: app.url,
          fakeOrigin: options.provider === "offline" ? null : app.fake.origin
        };
        return reply(200, address);
      }
      if (req.method === "POST" && req.url === "/release") {
        release(options);
        return reply(200, { ok: true });
      }
      reply(404, { error: "not found" });
    } catch (error) {
      // A boot that failed fails every file that asks for it, with its cause (the server's output).
      reply(500, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  project.provide("appHost", `http://127.0.0.1:${port}`);

  return async () => {
    server.close();
    await Promise.all([...entries.keys()].map(stop));
  };
}
