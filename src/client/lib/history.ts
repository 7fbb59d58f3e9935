/**
 * The room's transcript on the client: older pages loaded over REST in front
 * of the live window that useAgentChat holds. Pure, so the hardest client
 * logic is unit-tested (tests/unit/history-reanchor.test.ts).
 */
import type { RoomMessage } from "./messages";

export interface History {
  /** The live list this history was last anchored to. */
  live: RoomMessage[];
  /** Messages strictly before live[0], oldest first. */
  older: RoomMessage[];
  reachedStart: boolean;
}

const createdAt = (m: RoomMessage) => m.metadata?.createdAt ?? 0;

/**
 * The live list (useAgentChat's messages) is always a contiguous tail of the
 * conversation, but its length depends on who last wrote it: a snapshot from
 * the server can be longer or shorter than what we held, and a rewrite
 * (edit, regenerate) drops a tail. Re-anchor on its first message: keep what
 * we had before it, take the live list from there on.
 */
export function reanchor(prev: History, live: RoomMessage[]): History {
  if (live.length === 0) return { ...prev, live };
  const combined = [...prev.older, ...prev.live];
  const first = live[0];
  if (combined.length === 0 || prev.live[0]?.id === first.id) return { ...prev, live };
  const k = combined.findIndex((m) => m.id === first.id);
  if (k >= 0) return { live, older: combined.slice(0, k), reachedStart: prev.reachedStart };
  // live[0] is a new version (an edit or a regeneration) of a message we
  // hold: it takes that message's place, and the branch after it goes.
  const replaced = first.metadata?.versionOf;
  const r = replaced ? combined.findIndex((m) => m.id === replaced) : -1;
  if (r >= 0) return { live, older: combined.slice(0, r), reachedStart: prev.reachedStart };
  // live[0] is new to us: keep what is older than it by timestamp.
  const liveIds = new Set(live.map((m) => m.id));
  const older = combined.filter((m) => !liveIds.has(m.id) && createdAt(m) > 0 && createdAt(m) < createdAt(first));
  return { live, older, reachedStart: prev.reachedStart && older.length === 0 ? false : prev.reachedStart };
}

/**
 * Where the transcript the reader sees starts, in `messages`. A server
 * snapshot can bring messages older than any the reader has scrolled to
 * (the room's live window is longer than our first page); shown at once,
 * they would land above the reader and push what they are reading down the
 * page. So the transcript keeps starting at the first message it showed
 * (`startId`), and older ones already here wait, hidden, until the reader
 * asks for earlier messages. A start that is gone (the branch it was on was
 * replaced) shows everything again.
 */
export function shownFrom(messages: readonly RoomMessage[], startId: string | null): number {
  if (!startId) return 0;
  const index = messages.findIndex((m) => m.id === startId);
  return Math.max(index, 0);
}
