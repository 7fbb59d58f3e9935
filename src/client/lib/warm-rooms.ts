/**
 * Warm rooms: the last few rooms a person had open, kept in memory as they
 * last showed them, so switching back to one renders at once (no loading
 * state) and is then refreshed from the server (hooks/use-chat-room.ts).
 * Switching rooms is the most frequent action in a multi-room app.
 *
 * Kept per person (a sign-out and sign-in as someone else finds nothing of
 * the first person's rooms), in this tab's memory only, and only the live
 * window the room held (older pages are loaded again on scroll).
 */
import type { RoomMessage } from "./messages";

/** Rooms kept warm: the ones a person switches between. */
export const WARM_ROOMS = 4;

const warm = new Map<string, readonly RoomMessage[]>();

const keyOf = (personId: string, roomId: string) => `${personId}\u0000${roomId}`;

/** Keeps what the room shows now as its newest warm copy. */
export function rememberRoom(personId: string, roomId: string, messages: readonly RoomMessage[]) {
  if (!personId || messages.length === 0) return;
  const key = keyOf(personId, roomId);
  warm.delete(key);
  warm.set(key, messages);
  while (warm.size > WARM_ROOMS) warm.delete(warm.keys().next().value as string);
}

/** The room as this person last saw it in this tab, or null. */
export function warmRoom(personId: string, roomId: string): readonly RoomMessage[] | null {
  return warm.get(keyOf(personId, roomId)) ?? null;
}

/** Drops a room (deleted, or the person lost access) or, without a room, everything (signed out). */
export function forgetWarm(roomId?: string) {
  if (roomId === undefined) {
    warm.clear();
    return;
  }
  for (const key of [...warm.keys()]) if (key.endsWith(`\u0000${roomId}`)) warm.delete(key);
}

/**
 * A warm copy brought up to date with the room's newest page: the page
 * replaces the part of the copy it covers (edits, new versions, answers that
 * finished), messages the copy holds from before the page stay in front of
 * it, and messages newer than the page that arrived live since stay after
 * it. With no overlap (more was written meanwhile than a page holds) the
 * page alone is current, and older pages load on scroll as usual.
 */
export function mergeNewestPage(held: readonly RoomMessage[], page: readonly RoomMessage[]): RoomMessage[] {
  if (page.length === 0) return [...held];
  const at = held.findIndex((m) => m.id === page[0].id);
  const pageIds = new Set(page.map((m) => m.id));
  let lastCovered = -1;
  held.forEach((m, i) => {
    if (pageIds.has(m.id)) lastCovered = i;
  });
  const before = at < 0 ? [] : held.slice(0, at);
  const after = lastCovered < 0 ? [] : held.slice(lastCovered + 1).filter((m) => !pageIds.has(m.id));
  return [...before, ...page, ...after];
}

/**
 * A promise React's `use()` reads at once, without suspending: the warm copy
 * is already here, so the room renders in the same frame as the switch.
 */
export function settled<T>(value: T): Promise<T> {
  const promise = Promise.resolve(value) as Promise<T> & { status: "fulfilled"; value: T };
  promise.status = "fulfilled";
  promise.value = value;
  return promise;
}
