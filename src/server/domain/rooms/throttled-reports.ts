/**
 * A leading-and-trailing throttle for reports whose content is built when
 * they are sent (pure; the room uses it for its activity reports).
 */
/** At most one activity report per room per this interval; the last change always gets reported. */
const ACTIVITY_REPORT_INTERVAL_MS = 250;

/**
 * Coalesces activity reports: the first goes at once, later ones within the
 * interval collapse into one trailing report, built when it is sent (so it
 * carries the latest count and preview). A turn asks twice (start and end)
 * and a panel of parallel answers many times; the overseer hears at most
 * once per interval. A turn's start only defers its report (`defer`).
 */
export class ThrottledReports {
  #lastAt = Number.NEGATIVE_INFINITY;
  /** When the pending trailing report fires, or null when none is pending. */
  #dueAt: number | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #settle: (() => void) | null = null;

  constructor(
    private readonly send: () => Promise<void>,
    private readonly waitUntil: (promise: Promise<unknown>) => void,
    private readonly intervalMs = ACTIVITY_REPORT_INTERVAL_MS,
    private readonly now: () => number = Date.now
  ) {}

  request() {
    this.#reportBy(this.#lastAt + this.intervalMs);
  }

  /**
   * A change that can wait: reported with the next report asked for, or
   * one interval from now at the latest. A turn's start uses it, so its
   * report is not sent on the way to the model request, and a short turn's
   * start and end make one report.
   */
  defer() {
    this.#reportBy(Math.max(this.now() + this.intervalMs, this.#lastAt + this.intervalMs));
  }

  #reportBy(at: number) {
    if (this.#dueAt !== null && this.#dueAt <= at) return; // the pending report will carry this change too
    this.#cancelPending();
    const wait = at - this.now();
    if (wait <= 0) return this.#fire();
    this.#dueAt = at;
    this.waitUntil(
      new Promise<void>((resolve) => {
        this.#settle = resolve;
        this.#timer = setTimeout(() => {
          this.#clearPending();
          this.#fire();
          resolve();
        }, wait);
      })
    );
  }

  #cancelPending() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    const settle = this.#settle;
    this.#clearPending();
    settle?.();
  }

  #clearPending() {
    this.#dueAt = null;
    this.#timer = null;
    this.#settle = null;
  }

  #fire() {
    this.#lastAt = this.now();
    this.waitUntil(this.send());
  }
}
