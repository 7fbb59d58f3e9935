/**
 * The frames a test socket has received, and waiting for one that matches.
 * Shared by the Node socket client (integration and e2e tests) and the
 * workerd one (worker tests), so it imports nothing from Node. A wait that
 * times out fails with what it waited for and the frames that came instead.
 */

export type Frame = any;

export interface FrameLog {
  /** Every frame so far, oldest first (parsed JSON, or the raw text for a non-JSON frame). */
  readonly frames: Frame[];
  record(frame: Frame): void;
  /**
   * The first frame matching `predicate`, past or future. `what` names the
   * wait in the failure message (default: the predicate's source).
   */
  next<T = Frame>(predicate: (frame: Frame) => boolean, timeoutMs?: number, what?: string): Promise<T>;
}

export function createFrameLog(defaultTimeoutMs: number): FrameLog {
  const frames: Frame[] = [];
  const waiters = new Set<{ predicate: (frame: Frame) => boolean; resolve: (frame: Frame) => void }>();
  return {
    frames,
    record(frame) {
      frames.push(frame);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(frame)) {
          waiters.delete(waiter);
          waiter.resolve(frame);
        }
      }
    },
    next(predicate, timeoutMs = defaultTimeoutMs, what = predicate.toString()) {
      const seen = frames.find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          if (!waiters.delete(waiter)) return;
          const last = JSON.stringify(frames.slice(-5)).slice(0, 1500);
          reject(
            new Error(
              `no frame matching ${what.slice(0, 300)} within ${timeoutMs} ms (${frames.length} frames; last: ${last})`
            )
          );
        }, timeoutMs);
        const waiter = {
          predicate,
          resolve: (frame: Frame) => {
            clearTimeout(timer);
            resolve(frame);
          }
        };
        waiters.add(waiter);
      });
    }
  };
}
