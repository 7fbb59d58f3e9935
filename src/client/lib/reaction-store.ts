/**
 * The reactions of an open room's messages, outside React: history pages
 * and the room socket's frames write here, and each message subscribes to
 * its own entry, so a reaction re-renders only the message it is on (the
 * transcript's rows are memoised for the same reason).
 *
 * The socket speaks in order: its opening page, then each change as a
 * `rooms_reactions` frame. A page read over REST (the first page, a
 * prefetched one, older ones) may have been read before a change the
 * socket has already told, so it only fills in messages the socket has not
 * spoken about since it (re)joined: a late page never undoes a newer change.
 */
import type { Reaction, ReactionsByMessage } from "@/shared/reactions";

const NONE: Reaction[] = [];

/** What a page (`MessagePage`) says of reactions: its messages, and those of them with some. */
interface PageReactions {
  messages: ReadonlyArray<{ id: string }>;
  reactions?: ReactionsByMessage;
}

export class ReactionStore {
  #byMessage = new Map<string, Reaction[]>();
  #listeners = new Map<string, Set<() => void>>();
  /** Messages whose reactions the socket has told since its opening page: pages leave them alone. */
  #toldBySocket = new Set<string>();

  /** Each listed message's reactions now (a frame or an answer lists a message's whole list). */
  merge(reactions: ReactionsByMessage | undefined) {
    if (!reactions) return;
    for (const [messageId, list] of Object.entries(reactions)) this.#set(messageId, list);
  }

  /** A `rooms_reactions` frame of the socket: the newest word on its messages. */
  live(reactions: ReactionsByMessage) {
    for (const messageId of Object.keys(reactions)) this.#toldBySocket.add(messageId);
    this.merge(reactions);
  }

  /** The socket's opening page (each connection's first frame): what it tells from now on starts here. */
  opened(page: PageReactions) {
    this.#toldBySocket.clear();
    for (const { id } of page.messages) {
      this.#toldBySocket.add(id);
      this.#set(id, page.reactions?.[id] ?? NONE);
    }
  }

  /** A page read over REST: its messages' reactions (none listed: none), where the socket has not said newer. */
  page(page: PageReactions) {
    for (const { id } of page.messages) {
      if (!this.#toldBySocket.has(id)) this.#set(id, page.reactions?.[id] ?? NONE);
    }
  }

  #set(messageId: string, list: Reaction[]) {
    const had = this.#byMessage.get(messageId);
    if (list.length === 0) {
      if (!had) return;
      this.#byMessage.delete(messageId);
    } else this.#byMessage.set(messageId, list);
    for (const listener of this.#listeners.get(messageId) ?? []) listener();
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
