/**
 * Pure read-mark logic (shared/unread.ts): where a reader's "I have seen
 * message X" lands in the room's count, and how a stored mark moves. The
 * room computes positions from its own exact count, so a client can never
 * claim a position the room does not have; marks only move forward, so an
 * older tab can never undo what a newer one read.
 */
import type { ReadMark } from "@/shared/unread";

/**
 * Where a reader stands when it reports `messageId` as the newest message it
 * shows. `window` is the room's newest messages in order (its in-memory
 * window), `count` the room's exact message count. Messages after
 * `messageId` in the window have not been seen. An id the window does not
 * hold is one the room has not stored yet (an answer still streaming), so
 * everything stored has been seen. The result never exceeds `count`.
 */
export function readPosition(
  window: readonly { id: string }[],
  count: number,
  messageId: string | undefined
): { count: number; messageId: string | null } {
  let index = messageId === undefined ? -1 : window.length - 1;
  while (index >= 0 && window[index].id !== messageId) index--;
  if (index < 0) return { count, messageId: window.at(-1)?.id ?? null };
  return { count: Math.max(0, count - (window.length - 1 - index)), messageId: window[index].id };
}

/** What a room has heard from one reader since it last told the overseer: the furthest position wins. */
export interface PendingRead {
  identityId: string;
  count: number;
  messageId: string | null;
}

export function furthest(current: PendingRead | undefined, next: PendingRead): PendingRead {
  return current && current.count > next.count ? current : next;
}

/**
 * The stored mark after a report, or null when it does not move (marks
 * never go back). At an equal count a known message id replaces the stored
 * one: the newest message can change without the count changing.
 */
export function advanceMark(current: ReadMark | undefined, next: ReadMark): ReadMark | null {
  if (!Number.isSafeInteger(next.count) || next.count < 0) return null;
  if (!current) return next;
  if (next.count < current.count) return null;
  if (next.count === current.count && (next.messageId === null || next.messageId === current.messageId)) return null;
  return next;
}
