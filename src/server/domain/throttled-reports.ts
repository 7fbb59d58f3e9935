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
 * once per interval.
 */
export class ThrottledReports {
  #lastAt = Number.NEGATIVE_INFINITY;
  #due = false;

  constructor(
    private readonly send: () => Promise<void>,
    private readonly waitUntil: (promise: Promise<unknown>) => void,
    private readonly intervalMs = ACTIVITY_REPORT_INTERVAL_MS,
    private readonly now: () => number = Date.now
  ) {}

  request() {
    if (this.#due) return; // the trailing report will carry this change too
    const wait = this.#lastAt + this.intervalMs - this.now();
    if (wait <= 0) return this.#fire();
    this.#due = true;
    this.waitUntil(
      new Promise<void>((resolve) =>
        setTimeout(() => {
          this.#due = false;
          this.#fire();
          resolve();
        }, wait)
      )
    );
  }

  #fire() {
    this.#lastAt = this.now();
    this.waitUntil(this.send());
  }
}
