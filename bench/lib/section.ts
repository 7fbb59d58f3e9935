/** What every benchmark section returns, and the shared context it runs with. */
import { loadavg } from "node:os";
import { type FakeOpenAI, startFakeOpenAI } from "../../tests/support/fake-openai.ts";
import { type BenchServer, startBenchServer } from "./dev-server.ts";
import type { Summary } from "./stats.ts";

/** A measured number: a summary over repeated runs, or a single value. */
export type Figure = Summary | { value: number; unit: string };

export interface SectionResult {
  title: string;
  /** figure name → figure; every figure is a number the run measured */
  figures: Record<string, Figure>;
  /** sizes or steps a run left out, and why */
  skipped: string[];
  notes: string[];
  /** 1-minute load average when the section started and ended: other work on the machine shows here */
  loadavg: { before: number; after: number };
  durationMs: number;
}

export interface BenchContext {
  quick: boolean;
  /** "dev": the app under `vite dev`; "preview": its production build under `vite preview` */
  target: "dev" | "preview";
  log(message: string): void;
}

/**
 * Where app servers come from. run.ts sets this once: for `--target preview`
 * it builds the app into `buildDir` first.
 */
export const appTarget: { buildDir?: string; buildSeconds?: number } = {};

/** startBenchServer options for the current target. */
export function targetOptions(): { buildDir?: string } {
  return appTarget.buildDir ? { buildDir: appTarget.buildDir } : {};
}

export type Section = (ctx: BenchContext, out: SectionResult) => Promise<void>;

export function emptyResult(title: string): SectionResult {
  return {
    title,
    figures: {},
    skipped: [],
    notes: [],
    loadavg: { before: loadavg()[0], after: Number.NaN },
    durationMs: 0
  };
}

export function value(v: number, unit: string, digits = 2): Figure {
  return { value: Number.isFinite(v) ? Number(v.toFixed(digits)) : v, unit };
}

/**
 * The tests' fake provider (tests/support/fake-openai.ts), which records when
 * it wrote each answer's first and last chunk. Sections ask for their answers
 * with directives (`[[fake:chunks=N]]`, paced `[[fake:chunks=N,slow=MS]]`);
 * anything else gets three chunks.
 */
export function startBenchFake(): Promise<FakeOpenAI> {
  return startFakeOpenAI({ scenario: { kind: "chunks", count: 3 } });
}

/** Worker variables that point the app at a fake provider. */
export function appVars(fake: FakeOpenAI): Record<string, string> {
  return {
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: "bench",
    OPENAI_MODEL: "fake-model",
    // Generous: a benchmark must measure, not time out.
    MODEL_IDLE_TIMEOUT_MS: "120000",
    // REST rate limits off: 1,000 rooms are created from one address. The
    // limiter still runs; per-socket limits are not affected by this.
    RATE_LIMIT_SCALE: "0"
  };
}

/**
 * Worker variables some sections add to appVars (findshare waits out the
 * whole search fan-out). The shared quick server runs with all of them; a
 * section asking for a value it does not have gets a server of its own.
 */
const SHARED_EXTRA_VARS: Record<string, string> = { SEARCH_DEADLINE_MS: "30000" };

/**
 * `--quick` checks that every section runs and reports finite figures, and
 * there a dev server's boot (10–30 s on two busy cores) was most of a
 * section's time: so in quick mode the sections that need only a plain app
 * (every `withApp` caller) share one server and one fake, started on first
 * use and stopped by run.ts (`stopSharedApp`). Each works in workspaces of
 * its own; its figures then include what earlier sections left running,
 * which a quick run does not report on. A full run gives every section a
 * fresh server, as its figures need.
 */
export const sharing = { quick: false };
let shared: Promise<{ app: BenchServer; fake: FakeOpenAI }> | null = null;

async function startApp(extraVars: Record<string, string>, stateDir?: string) {
  const fake = await startBenchFake();
  try {
    const app = await startBenchServer({
      vars: { ...appVars(fake), ...extraVars },
      stateDir,
      ...targetOptions()
    });
    return { app, fake };
  } catch (error) {
    await fake.close();
    throw error;
  }
}

/** Whether `fn` runs on the shared quick server: quick mode, and every extra variable it asks for is the shared one's. */
function onShared(opts: { stateDir?: string; vars?: Record<string, string> }): boolean {
  if (!sharing.quick || opts.stateDir) return false;
  return Object.entries(opts.vars ?? {}).every(([k, v]) => SHARED_EXTRA_VARS[k] === v);
}

/**
 * Runs `fn` with a fake provider and an app server: fresh ones, stopped
 * after (a full run), or the shared quick server (see `sharing`).
 */
export async function withApp<T>(
  fn: (app: BenchServer, fake: FakeOpenAI) => Promise<T>,
  opts: { stateDir?: string; vars?: Record<string, string> } = {}
): Promise<T> {
  if (onShared(opts)) {
    shared ??= startApp(SHARED_EXTRA_VARS);
    const { app, fake } = await shared.catch((error) => {
      shared = null; // the next section tries again, and fails with its own error
      throw error;
    });
    return fn(app, fake);
  }
  const { app, fake } = await startApp(opts.vars ?? {}, opts.stateDir);
  try {
    return await fn(app, fake);
  } finally {
    await app.stop();
    await fake.close();
  }
}

/** Stops the shared quick server, if one was started. */
export async function stopSharedApp(): Promise<void> {
  const started = await shared?.catch(() => null);
  shared = null;
  if (!started) return;
  await started.app.stop();
  await started.fake.close();
}

export function uniqueWorkspace(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}
