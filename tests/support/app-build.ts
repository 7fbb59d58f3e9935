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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./dev-server";

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
  await promisify(execFile)(
    process.execPath,
    [path.join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--outDir", outDir, "--logLevel", "error"],
    {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: "0", WRANGLER_SEND_METRICS: "false" },
      maxBuffer: 64 * 1024 * 1024
    }
  ).catch((error: Error & { stderr?: string }) => {
    throw new Error(`vite build of the app for the test servers failed:\n${error.stderr ?? error.message}`);
  });
  return outDir;
}

/** What startDevServer needs to serve a build. */
export function previewOf(buildDir: string) {
  return { command: "preview" as const, args: ["--outDir", buildDir] };
}
