/**
 * Production builds for test and benchmark servers, served through
 * `vite preview` (the built Worker in workerd, Durable Objects, facets and
 * the built client): the same code a deploy ships. Against `vite dev` a
 * server boots in about 4 s instead of 15–45 s, and a page loads one bundle
 * instead of some 300 transformed modules, which on a 2-CPU machine was most
 * of the browser layer's time.
 *
 * The integration and browser layers build the app once per run
 * (`buildAppOnce`, or serve the build ROOMS_APP_BUILD names) and, for the
 * files that seed big rooms, the benchmarks' Worker (`buildBenchAppOnce`:
 * the app plus its seeding route).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./dev-server.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** The folder of the app's production build. */
    appBuild: string;
    /** The folder of the benchmarks' Worker's production build (bench/vite.bench.config.ts). */
    benchAppBuild: string;
  }
}

const APP_CONFIG = path.join(ROOT, "vite.config.ts");
export const BENCH_APP_CONFIG = path.join(ROOT, "bench/vite.bench.config.ts");

/** The layers' global setups run in Vitest's main process: they share each build through this. */
const SHARED_KEY = Symbol.for("rooms.tests.builds");
type Holder = { [SHARED_KEY]?: Map<string, Promise<string>> };

function buildOnce(configFile: string): Promise<string> {
  const holder = globalThis as Holder;
  holder[SHARED_KEY] ??= new Map();
  let build = holder[SHARED_KEY].get(configFile);
  if (!build) {
    build = (async () => {
      const outDir = mkdtempSync(path.join(tmpdir(), "rooms-build-"));
      process.once("exit", () => rmSync(outDir, { recursive: true, force: true }));
      await buildForPreview(configFile, outDir);
      return outDir;
    })();
    holder[SHARED_KEY].set(configFile, build);
  }
  return build;
}

/**
 * The app's build for this process: the one ROOMS_APP_BUILD names, else one
 * built into a temporary folder once per process (removed when it exits).
 * `.ci/run` names the deploy dry run's `dist/`, the bundle it has just
 * proved deployable: the same `vite build` of the same config, and building
 * it again cost a CPU-bound run about 18 CPU-seconds.
 */
export function buildAppOnce(): Promise<string> {
  const given = process.env.ROOMS_APP_BUILD;
  if (!given) return buildOnce(APP_CONFIG);
  const dir = path.resolve(ROOT, given);
  return Promise.resolve().then(() => {
    writeOwnPointer(dir);
    return dir;
  });
}

/** Builds the benchmarks' Worker (the app plus its seeding route) once per process, like buildAppOnce. */
export function buildBenchAppOnce(): Promise<string> {
  return buildOnce(BENCH_APP_CONFIG);
}

/** Builds running in this process: the first saves the repository's pointer (below), the last puts it back. */
let running = 0;
let savedPointer: string | null = null;
const REPOSITORY_POINTER = path.join(ROOT, ".wrangler/deploy/config.json");

/**
 * `vite build --config configFile --outDir outDir`, for `previewOf(outDir, configFile)`.
 *
 * `vite build` points the repository's .wrangler/deploy/config.json at its
 * output, and `vite preview` reads the Worker from `<root>/.wrangler/deploy/
 * config.json` whatever its --outDir says. That pointer is the developer's
 * (their last build, for `wrangler deploy`): it is put back, and the build
 * gets a pointer of its own inside its folder, which `vite preview` reads
 * when rooted there. So several builds can be made and served at once.
 */
export async function buildForPreview(configFile: string, outDir: string): Promise<void> {
  if (running++ === 0) savedPointer = existsSync(REPOSITORY_POINTER) ? readFileSync(REPOSITORY_POINTER, "utf8") : null;
  try {
    await build(configFile, outDir);
  } finally {
    if (--running === 0) {
      if (savedPointer === null) rmSync(REPOSITORY_POINTER, { force: true });
      else writeFileSync(REPOSITORY_POINTER, savedPointer);
    }
  }
}

async function build(configFile: string, outDir: string): Promise<void> {
  try {
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
        "error"
      ],
      {
        cwd: ROOT,
        // NODE_ENV: Vitest sets it to "test", and a build that inherits it
        // bundles React's development runtime (owner stacks, `jsxDEV`): the
        // pages spent several times the CPU per streamed chunk that the
        // production build does. Tests serve what `npm run build` ships.
        env: { ...process.env, NODE_ENV: "production", FORCE_COLOR: "0", WRANGLER_SEND_METRICS: "false" },
        maxBuffer: 64 * 1024 * 1024
      }
    );
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr;
    throw new Error(`vite build of ${path.relative(ROOT, configFile)} failed:\n${stderr ?? String(error)}`);
  }
  writeOwnPointer(outDir);
}

/** The pointer `vite preview`, rooted in a build, reads its Worker from (buildForPreview says why). */
function writeOwnPointer(buildDir: string): void {
  const ownPointer = path.join(buildDir, ".wrangler/deploy/config.json");
  mkdirSync(path.dirname(ownPointer), { recursive: true });
  writeFileSync(ownPointer, JSON.stringify({ configPath: workerConfigOf(buildDir), auxiliaryWorkers: [] }));
}

/** The wrangler.json of a build's Worker (in a folder named after it: rooms, rooms_bench, …). */
function workerConfigOf(buildDir: string): string {
  const workerDir = readdirSync(buildDir).find((name) => existsSync(path.join(buildDir, name, "wrangler.json")));
  if (!workerDir) throw new Error(`no Worker in ${buildDir}: was it built with buildForPreview?`);
  return path.join(buildDir, workerDir, "wrangler.json");
}

/** What startDevServer needs to serve a build: `vite preview` with its Vite config, rooted in the build (see buildForPreview). */
export function previewOf(buildDir: string, configFile = APP_CONFIG) {
  return { command: "preview" as const, configFile, args: [buildDir] };
}
