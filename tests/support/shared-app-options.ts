/**
 * Which shared dev server a test file asks for (tests/support/app-host.ts):
 * files that ask with the same options share one server; every distinct set
 * of options is another boot, so prefer the defaults.
 */
export interface SharedAppOptions {
  /** `fake` (default): the shared fake OpenAI provider; `offline`: the built-in offline model. */
  provider?: "fake" | "offline";
  /**
   * More Worker variables, over {@link SHARED_APP_VARS}. A file that needs a
   * variable no other file sets (a short timeout, a small budget) gets a
   * server of its own: keep such files few.
   */
  vars?: Record<string, string>;
  /**
   * One server per Vitest worker instead of one for the layer: the files on
   * it run one after another, never side by side (the browser layer, whose
   * pages all open the `default` workspace).
   */
  perWorker?: boolean;
  /** Set from VITEST_POOL_ID by shared-app.ts when `perWorker` is. */
  worker?: string;
}

/**
 * Every shared server runs without rate limits: many files send from one
 * address at once, which per-address limits would refuse. Limits are tested
 * in the worker layer (tests/worker/limits.test.ts) or on a server of a
 * test's own.
 */
export const SHARED_APP_VARS: Record<string, string> = { RATE_LIMIT_SCALE: "0" };

/** One key per distinct configuration. */
export function sharedAppKey(options: SharedAppOptions): string {
  const vars = { ...SHARED_APP_VARS, ...options.vars };
  const sorted = Object.fromEntries(Object.entries(vars).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify([options.provider ?? "fake", sorted, options.worker ?? null]);
}
