/**
 * Who is in a room, as every member sees it: one entry per identity (a
 * person with three tabs is one person), typing if any of their sockets is.
 * Frames go out only when the list changed, and at most once per interval
 * per room, so no burst of hellos, typing flips or reconnects can be
 * amplified into a flood to everyone.
 */

import type { Caller } from "@/server/domain/access/caller";
import type { PresenceUser } from "@/shared/protocol";

export interface PresenceEntry {
  caller: Caller | null;
  typing: boolean;
}

export function presenceList(entries: Iterable<PresenceEntry>): PresenceUser[] {
  const byId = new Map<string, PresenceUser>();
  for (const { caller, typing } of entries) {
    if (!caller) continue;
    const { id, name, kind } = caller.identity;
    const seen = byId.get(id);
    if (seen) seen.typing ||= typing;
    else byId.set(id, { id, name, kind, typing });
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

type Timers = {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
};

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)
};

/**
 * Runs `flush` at most once per `intervalMs`: the first request after a
 * quiet spell runs at once, later ones fold into one run at the end of the
 * interval.
 */
export class Coalescer {
  #last = Number.NEGATIVE_INFINITY;
  #pending: unknown = null;

  constructor(
    private readonly intervalMs: number,
    private readonly flush: () => void,
    private readonly now: () => number = Date.now,
    private readonly timers: Timers = realTimers
  ) {}

  request() {
    if (this.#pending !== null) return;
    const wait = this.#last + this.intervalMs - this.now();
    if (wait <= 0) {
      this.#run();
      return;
    }
    this.#pending = this.timers.set(() => {
      this.#pending = null;
      this.#run();
    }, wait);
  }

  cancel() {
    if (this.#pending !== null) this.timers.clear(this.#pending);
    this.#pending = null;
  }

  #run() {
    this.#last = this.now();
    this.flush();
  }
}
