/**
 * The app's production build, made once per test run and served by every
 * integration and browser test server through `vite preview` (the built
 * Worker in workerd, Durable Objects, facets and the built client): the
 * same code a deploy ships. Against `vite dev` a server boots in about 4 s
 * instead of 15–45 s, and a page loads one bundle instead of some 300
 * transformed modules, which on a 2-CPU machine was most of the browser
 * layer's time.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./dev-server.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** The folder of the app's production build (tests/support/app-build.ts). */
    appBuild: string;
  }
}

/** Both layers' global setups run in Vitest's main process: they share one build through this. */
const SHARED_KEY = Symbol.for("rooms.tests.appBuild");
type Holder = { [SHARED_KEY]?: Promise<string> };

/** Builds the app (`vite build`) into a temporary folder once per process; removed when the process exits. */
export function buildAppOnce(): Promise<string> {
  const holder = globalThis as Holder;
  holder[SHARED_KEY] ??= buildApp();
  return holder[SHARED_KEY];
}

async function buildApp(): Promise<string> {
  const outDir = mkdtempSync(path.join(tmpdir(), "rooms-build-"));
  process.once("exit", () => rmSync(outDir, { recursive: true, force: true }));
  // `vite build` points the repository's .wrangler/deploy/config.json at its
  // output, which is how `vite preview` finds the Worker. That pointer is
  // the developer's (their last build, for `wrangler deploy`): it is put
  // back, and this build gets a pointer of its own inside its folder, which
  // `vite preview` reads when started with the folder as its root.
  const repositoryPointer = path.join(ROOT, ".wrangler/deploy/config.json");
  const saved = existsSync(repositoryPointer) ? readFileSync(repositoryPointer, "utf8") : null;
  try {
    await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--outDir", outDir, "--logLevel", "error"],
      {
        cwd: ROOT,
        env: { ...process.env, FORCE_COLOR: "0", WRANGLER_SEND_METRICS: "false" },
        maxBuffer: 64 * 1024 * 1024
      }
    );
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr;
    throw new Error(`vite build of the app for the test servers failed:\n${stderr ?? String(error)}`);
  } finally {
    if (saved === null) rmSync(repositoryPointer, { force: true });
    else writeFileSync(repositoryPointer, saved);
  }
  const ownPointer = path.join(outDir, ".wrangler/deploy/config.json");
  mkdirSync(path.dirname(ownPointer), { recursive: true });
  writeFileSync(
    ownPointer,
    JSON.stringify({ configPath: path.join(outDir, "rooms/wrangler.json"), auxiliaryWorkers: [] })
  );
  return outDir;
}

/** What startDevServer needs to serve a build: `vite preview` with the app's config, rooted in the build. */
export function previewOf(buildDir: string) {
  return { command: "preview" as const, configFile: path.join(ROOT, "vite.config.ts"), args: [buildDir] };
}
