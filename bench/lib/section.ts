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
 * it builds the app into `outDir` first.
 */
export const appTarget: { preview: boolean; outDir: string } = { preview: false, outDir: "" };

/** startBenchServer options for the current target. */
export function targetOptions(): { preview: boolean; args: string[] } {
  return appTarget.preview ? { preview: true, args: ["--outDir", appTarget.outDir] } : { preview: false, args: [] };
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

/** Runs `fn` with a fresh fake provider and a fresh app server, stopping both after. */
export async function withApp<T>(
  fn: (app: BenchServer, fake: FakeOpenAI) => Promise<T>,
  opts: { stateDir?: string } = {}
): Promise<T> {
  const fake = await startBenchFake();
  let app: BenchServer | undefined;
  try {
    app = await startBenchServer({ vars: appVars(fake), stateDir: opts.stateDir, ...targetOptions() });
    return await fn(app, fake);
  } finally {
    await app?.stop();
    await fake.close();
  }
}

export function uniqueWorkspace(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}
