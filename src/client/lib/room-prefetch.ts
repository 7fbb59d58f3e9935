/**
 * Rooms fetched ahead of being opened: a pointer resting on a room in the
 * list, or the keyboard's focus on it, starts loading its newest page, so a
 * click opens it without waiting for that round trip (switching rooms is the
 * most frequent action in a multi-room app). A prefetched page is used once,
 * only while it is fresh, and a failed one is forgotten so the room's own
 * request reports its error.
 */
import type { MessagePage } from "@/shared/protocol";

/**
 * A page fetched longer ago than this is fetched again when the room opens.
 * Short: the room's socket brings in what was written after the fetch
 * (hooks/use-chat-room.ts), but the "N new messages" divider is placed from
 * the first page shown, and a stale page would place it wrong. A pointer
 * rests and clicks within it.
 */
export const PREFETCH_FRESH_MS = 2_000;
/** Pages held at once: a pointer crossing the whole list does not keep them all. */
const MAX_HELD = 4;

interface Held {
  at: number;
  page: Promise<MessagePage>;
}

export interface RoomPrefetch {
  /** Starts loading the room's newest page, unless a fresh one is held or on its way. */
  prefetch(roomId: string): void;
  /** The held page for the room, taken (once), or null when none is fresh. */
  take(roomId: string): Promise<MessagePage> | null;
  /** Drops a room's page (deleted, or access lost) or, without a room, every page (signed out). */
  forget(roomId?: string): void;
}

/** A prefetch cache over `load` (the room's newest page) and a clock. */
export function roomPrefetch(load: (roomId: string) => Promise<MessagePage>, now = () => Date.now()): RoomPrefetch {
  const held = new Map<string, Held>();
  const fresh = (entry: Held | undefined): entry is Held => !!entry && now() - entry.at < PREFETCH_FRESH_MS;
  return {
    prefetch(roomId) {
      if (fresh(held.get(roomId))) return;
      const page = load(roomId);
      held.delete(roomId);
      held.set(roomId, { at: now(), page });
      // A failure is the room's own request's to report: forget it here.
      page.catch(() => {
        if (held.get(roomId)?.page === page) held.delete(roomId);
      });
      while (held.size > MAX_HELD) held.delete(held.keys().next().value as string);
    },
    take(roomId) {
      const entry = held.get(roomId);
      held.delete(roomId);
      return fresh(entry) ? entry.page : null;
    },
    forget(roomId) {
      if (roomId === undefined) held.clear();
      else held.delete(roomId);
    }
  };
}
