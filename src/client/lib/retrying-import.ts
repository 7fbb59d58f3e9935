/**
 * React.lazy remembers a failed import for the life of the page, so one chunk
 * fetch that fails (a network blip, the server restarting, a flaky proxy)
 * would break every later render of that component, in every message. This
 * wraps a loader so a failure is retried with backoff, and the caller only
 * sees a rejection once every attempt has failed. While it retries, the
 * Suspense fallback (plain text for Markdown) stays on screen.
 */
const IMPORT_RETRY_DELAYS_MS: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000];

export function retryingImport<T>(
  load: () => Promise<T>,
  delaysMs: readonly number[] = IMPORT_RETRY_DELAYS_MS,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
): () => Promise<T> {
  return async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await load();
      } catch (error) {
        if (attempt >= delaysMs.length) throw error;
        await wait(delaysMs[attempt]);
      }
    }
  };
}
