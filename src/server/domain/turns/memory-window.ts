/**
 * How much of a room's transcript sits in memory (`this.messages`).
 *
 * The framework does work over that whole array on every save (reconcile,
 * a JSON comparison of every message, and a `cf_agent_chat_messages` frame
 * carrying all of it to every socket), twice or more per turn. So the array
 * must stay small and bounded whatever the room's size: durable storage
 * keeps every message; memory keeps what a turn can use. Pure.
 */

/** About 4 characters a token, and room for twice the model's context budget; never under 64 KiB. */
export function memoryWindowBytes(contextTokenBudget: number): number {
  return Math.max(64 * 1024, contextTokenBudget * 4 * 2);
}

/** Check the window again once this many messages were added since the last check (amortises the sizing). */
export const WINDOW_CHECK_EVERY = 16;

/**
 * Index of the first message of the longest tail of `messages` whose
 * serialized size fits in `budgetBytes`; the last `minKeep` messages are
 * always kept (a question and its answer), whatever their size.
 */
export function windowStart<T>(
  messages: readonly T[],
  budgetBytes: number,
  minKeep = 2,
  sizeOf: (message: T) => number = (message) => JSON.stringify(message).length
): number {
  let used = 0;
  let start = messages.length;
  while (start > 0) {
    const size = sizeOf(messages[start - 1]);
    const kept = messages.length - start;
    if (kept >= minKeep && used + size > budgetBytes) break;
    used += size;
    start--;
  }
  return start;
}

/**
 * Keeps the in-memory transcript bounded while the room is awake: every
 * save appends to it and the framework's per-save work is over all of it,
 * so it is cut back to the window now and then (every WINDOW_CHECK_EVERY
 * messages added). Storage keeps everything.
 */
export class BoundedWindow {
  /** Length of the transcript when the window was last checked. */
  #checkedAt = 0;

  constructor(private readonly budgetBytes: number) {}

  /** The transcript cut back to the window, or the same array when no cut is due. */
  bound<T>(messages: T[]): T[] {
    if (messages.length < this.#checkedAt) this.#checkedAt = messages.length;
    if (messages.length - this.#checkedAt < WINDOW_CHECK_EVERY) return messages;
    const start = windowStart(messages, this.budgetBytes);
    const kept = start > 0 ? messages.slice(start) : messages;
    this.#checkedAt = kept.length;
    return kept;
  }
}
