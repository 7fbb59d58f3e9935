/**
 * The reactions of an open room's messages, outside React: history pages
 * and the room socket's `rooms_reactions` frames write here, and each
 * message subscribes to its own entry, so a reaction re-renders only the
 * message it is on (the transcript's rows are memoised for the same reason).
 */
import type { Reaction, ReactionsByMessage } from "@/shared/reactions";

const NONE: Reaction[] = [];

export class ReactionStore {
  #byMessage = new Map<string, Reaction[]>();
  #listeners = new Map<string, Set<() => void>>();

  /** Each listed message's reactions now (a page or a frame lists a message's whole list). */
  merge(reactions: ReactionsByMessage | undefined) {
    if (!reactions) return;
    for (const [messageId, list] of Object.entries(reactions)) {
      if (list.length === 0) this.#byMessage.delete(messageId);
      else this.#byMessage.set(messageId, list);
      for (const listener of this.#listeners.get(messageId) ?? []) listener();
    }
  }

  of(messageId: string): Reaction[] {
    return this.#byMessage.get(messageId) ?? NONE;
  }

  subscribe(messageId: string, listener: () => void): () => void {
    let set = this.#listeners.get(messageId);
    if (!set) {
      set = new Set();
      this.#listeners.set(messageId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(messageId);
    };
  }
}

const stores = new Map<string, ReactionStore>();

/** The one store of a room (kept while the tab lives: a room's reactions are small). */
export function reactionStore(roomId: string): ReactionStore {
  let store = stores.get(roomId);
  if (!store) {
    store = new ReactionStore();
    stores.set(roomId, store);
  }
  return store;
}

/** A `rooms_reactions` frame's reactions; null for any other frame (read cheaply, as room-socket-frames.ts does). */
export function reactionsInFrame(data: string): ReactionsByMessage | null {
  if (!data.includes('"rooms_reactions"')) return null;
  try {
    const frame = JSON.parse(data) as { type?: string; reactions?: unknown };
    return frame.type === "rooms_reactions" && frame.reactions && typeof frame.reactions === "object"
      ? (frame.reactions as ReactionsByMessage)
      : null;
  } catch {
    return null;
  }
}
