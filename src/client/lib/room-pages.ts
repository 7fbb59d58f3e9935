/**
 * The newest page of a room, as the room page loads it first, and the
 * tab's prefetch of it (lib/room-prefetch.ts): a room row starts it on
 * hover or focus, the room takes it when it opens.
 */
import { api } from "./api";
import { roomPrefetch } from "./room-prefetch";

/** Messages in a page of history, the newest page included. */
export const PAGE_SIZE = 50;

export const prefetchedRooms = roomPrefetch((roomId) => api.listMessages(roomId, { limit: PAGE_SIZE }));

/** How long a pointer or the focus rests on a room before its page is fetched. */
const INTENT_MS = 80;
let pending: { roomId: string; timer: ReturnType<typeof setTimeout> } | undefined;

/** Prefetches the room once the pointer or focus has rested on it: one crossing the list fetches nothing. */
export function prefetchSoon(roomId: string) {
  prefetchCancel();
  const timer = setTimeout(() => {
    pending = undefined;
    prefetchedRooms.prefetch(roomId);
  }, INTENT_MS);
  pending = { roomId, timer };
}

/**
 * The pointer or focus left `roomId` before its page was asked for; without
 * a room, whatever was about to be fetched (a click opens the room itself).
 * Leaving another row (the focus blurring elsewhere while the pointer rests
 * here) does not cancel this one's.
 */
export function prefetchCancel(roomId?: string) {
  if (!pending || (roomId !== undefined && pending.roomId !== roomId)) return;
  clearTimeout(pending.timer);
  pending = undefined;
}
