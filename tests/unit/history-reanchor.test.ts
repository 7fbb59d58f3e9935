import { describe, expect, it } from "vitest";
import { type History, reanchor, shownFrom } from "../../src/client/lib/history";
import type { RoomMessage } from "../../src/client/lib/messages";

/** A message `id` written at `createdAt`; `versionOf` marks an edit or regeneration of another. */
function msg(id: string, createdAt: number, versionOf?: string): RoomMessage {
  return {
    id,
    role: id.startsWith("a") ? "assistant" : "user",
    parts: [{ type: "text", text: id }],
    metadata: { createdAt, ...(versionOf ? { versionOf } : {}) }
  };
}

const ids = (messages: RoomMessage[]) => messages.map((m) => m.id);
const transcript = (h: History) => [...ids(h.older), ...ids(h.live)];

// u1 a1 u2 a2 u3 a3: the older page holds u1 a1, the live window u2 … a3.
const u1 = msg("u1", 1);
const a1 = msg("a1", 2);
const u2 = msg("u2", 3);
const a2 = msg("a2", 4);
const u3 = msg("u3", 5);
const a3 = msg("a3", 6);
const held: History = { older: [u1, a1], live: [u2, a2, u3, a3], reachedStart: true };

describe("re-anchoring the older pages on a new live window", () => {
  it("keeps the older pages when the live window still starts with the same message", () => {
    const u4 = msg("u4", 7);
    const next = reanchor(held, [u2, a2, u3, a3, u4]);
    expect(transcript(next)).toEqual(["u1", "a1", "u2", "a2", "u3", "a3", "u4"]);
    expect(next.reachedStart).toBe(true);
  });

  it("moves what a shorter snapshot no longer holds into the older pages, losing nothing", () => {
    const next = reanchor(held, [u3, a3]);
    expect(ids(next.older)).toEqual(["u1", "a1", "u2", "a2"]);
    expect(ids(next.live)).toEqual(["u3", "a3"]);
  });

  it("takes a longer snapshot that reaches into the older pages from its first message on", () => {
    const next = reanchor(held, [a1, u2, a2, u3, a3]);
    expect(ids(next.older)).toEqual(["u1"]);
    expect(transcript(next)).toEqual(["u1", "a1", "u2", "a2", "u3", "a3"]);
  });

  it("puts an edit (metadata.versionOf) in the place of the message it replaces and drops the branch after it", () => {
    const edited = msg("u2-edit", 10, "u2");
    const answer = msg("a2-edit", 11);
    const next = reanchor(held, [edited, answer]);
    expect(transcript(next)).toEqual(["u1", "a1", "u2-edit", "a2-edit"]);
  });

  it("replaces a message from the older pages too when the new version's original is there", () => {
    const regenerated = msg("a1-again", 12, "a1");
    const next = reanchor(held, [regenerated]);
    expect(transcript(next)).toEqual(["u1", "a1-again"]);
  });

  it("keeps only what is older by time when the live window starts with a message it has never seen", () => {
    const stranger = msg("u9", 4.5);
    const next = reanchor(held, [stranger, msg("a9", 4.6)]);
    expect(ids(next.older)).toEqual(["u1", "a1", "u2", "a2"]);
    expect(ids(next.live)).toEqual(["u9", "a9"]);
    expect(next.reachedStart).toBe(true);
  });

  it("no longer claims the start is reached when nothing held is older than an unknown first message", () => {
    const earliest = msg("u0", 0.5);
    const next = reanchor(held, [earliest]);
    expect(ids(next.older)).toEqual([]);
    expect(next.reachedStart).toBe(false);
  });

  it("ignores held messages without a timestamp when placing an unknown first message", () => {
    const undated: RoomMessage = { id: "u-undated", role: "user", parts: [], metadata: {} as RoomMessage["metadata"] };
    const prev: History = { older: [undated, u1], live: [a1], reachedStart: false };
    const next = reanchor(prev, [msg("u5", 3)]);
    expect(ids(next.older)).toEqual(["u1", "a1"]);
  });

  it("keeps the older pages through an empty live window (a reconnect before the snapshot)", () => {
    const next = reanchor(held, []);
    expect(ids(next.older)).toEqual(["u1", "a1"]);
    expect(next.live).toEqual([]);
  });

  it("anchors the first live window of an empty history as it is", () => {
    const next = reanchor({ older: [], live: [], reachedStart: false }, [u3, a3]);
    expect(transcript(next)).toEqual(["u3", "a3"]);
    expect(next.reachedStart).toBe(false);
  });
});

describe("shownFrom", () => {
  const room = [u1, a1, u2, a2, u3, a3];

  it("keeps the transcript starting at the first message it showed when older ones arrive in front", () => {
    expect(shownFrom(room, "u2")).toBe(2);
    expect(room.slice(shownFrom(room, "u2")).map((m) => m.id)).toEqual(["u2", "a2", "u3", "a3"]);
  });

  it("shows everything before anything was shown, or when the first shown message is gone", () => {
    expect(shownFrom(room, null)).toBe(0);
    expect(shownFrom(room, "replaced-by-an-edit")).toBe(0);
  });
});
