/**
 * Keep-alive only for work that runs long enough to need it (pure; the
 * room wires it in as its `keepAlive`).
 *
 * A Durable Object is evicted after about 70–140 s without an incoming
 * request (agents docs, durable-execution.md); the framework's `keepAlive()`
 * guards long work with a 30 s alarm heartbeat. In a facet every
 * `keepAlive()` is an RPC to the root to take a ref and another to drop it,
 * and each re-plans the root's alarm (`_syncHostJobs`: SQL and `setAlarm`).
 * A chat turn takes three of them nested (the turn's fiber, `_reply`, the
 * response hook): six RPCs and several alarm writes per turn, for turns that
 * mostly end within seconds. Every turn starts from an incoming request (a
 * socket frame, a REST call, an alarm), so for its first seconds eviction
 * for inactivity cannot happen: the real keep-alive is taken only once the
 * work has run for `deferMs`, far inside the eviction window, and the
 * heartbeat then guards the rest exactly as before.
 */
const KEEP_ALIVE_DEFER_MS = 10_000;

type Acquire = () => Promise<() => void>;

export function lazyKeepAlive(
  acquire: Acquire,
  deferMs = KEEP_ALIVE_DEFER_MS,
  onError: (error: unknown) => void = (error) => console.error("[rooms] keep-alive failed:", error)
): () => void {
  let disposed = false;
  let release: (() => void) | null = null;
  const timer = setTimeout(() => {
    acquire().then(
      (dispose) => {
        if (disposed) dispose();
        else release = dispose;
      },
      (error: unknown) => onError(error)
    );
  }, deferMs);
  return () => {
    if (disposed) return;
    disposed = true;
    clearTimeout(timer);
    release?.();
  };
}
