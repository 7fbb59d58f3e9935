/**
 * Polling for a condition outside a socket (REST state, files, counters),
 * for tests in Node and in workerd alike. It fails loudly: a timeout throws
 * with what it waited for and the last value it saw, never returns quietly.
 */
export async function waitFor<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
  what = accept.toString(),
  /** How often to ask again; short where the answer is a moment that must not be missed. */
  intervalMs = 150
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) {
      throw new Error(
        `not met within ${timeoutMs} ms: ${what.slice(0, 300)}; last value: ${JSON.stringify(last)?.slice(0, 1500)}`
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    last = await probe();
  }
  return last;
}

/** A name no other test will pick: tests share one server and one workspace. */
export function uniqueName(prefix = "t"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}
