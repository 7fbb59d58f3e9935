/**
 * The transcript frames a room's socket held while the transcript was not
 * listening, applied in order as the framework would have applied them
 * (src/client/lib/held-transcript.ts).
 */

import { MessageType } from "@cloudflare/ai-chat/types";
import { describe, expect, it } from "vitest";
import { applyHeldFrames, type HeldFrames, TranscriptFrameHold } from "../../src/client/lib/held-transcript";
import type { RoomMessage } from "../../src/client/lib/messages";

/** A message `id` written at `createdAt`; `versionOf` marks an edit or regeneration of another. */
function msg(id: string, createdAt: number, versionOf?: string, text = id): RoomMessage {
  return {
    id,
    role: id.startsWith("a") ? "assistant" : "user",
    parts: [{ type: "text", text }],
    metadata: { createdAt, ...(versionOf ? { versionOf } : {}) }
  };
}

const ids = (messages: RoomMessage[]) => messages.map((m) => m.id);
const [u1, a1, u2, a2] = [msg("u1", 1), msg("a1", 2), msg("u2", 3), msg("a2", 4)];
const page = [u1, a1, u2, a2];

describe("applyHeldFrames", () => {
  it("keeps every message of several sends whose frames each carried one", () => {
    const u3 = msg("u3", 5);
    const u4 = msg("u4", 6);
    const frames = [
      { kind: "window" as const, messages: [u3] },
      { kind: "window" as const, messages: [u4] }
    ];
    expect(ids(applyHeldFrames(page, frames))).toEqual(["u1", "a1", "u2", "a2", "u3", "u4"]);
  });

  it("takes a window over the part of the list it covers, the server's word on it", () => {
    const finished = msg("a2", 4, undefined, "the finished answer");
    const applied = applyHeldFrames(page, [{ kind: "window", messages: [u2, finished] }]);
    expect(ids(applied)).toEqual(["u1", "a1", "u2", "a2"]);
    expect(applied[3]).toBe(finished);
  });

  it("puts a regenerated answer in its original's place, which does not come back", () => {
    const again = msg("a2b", 7, "a2");
    expect(ids(applyHeldFrames(page, [{ kind: "window", messages: [again] }]))).toEqual(["u1", "a1", "u2", "a2b"]);
    // The same as the window of the whole branch.
    expect(ids(applyHeldFrames(page, [{ kind: "window", messages: [u2, again] }]))).toEqual(["u1", "a1", "u2", "a2b"]);
  });

  it("replaces an updated message where it stands, and ignores one it does not hold", () => {
    const updated = msg("a1", 2, undefined, "with its tool's result");
    const applied = applyHeldFrames(page, [
      { kind: "updated", message: updated },
      { kind: "updated", message: msg("zz", 9) }
    ]);
    expect(ids(applied)).toEqual(ids(page));
    expect(applied[1]).toBe(updated);
  });

  it("keeps the list for an empty window, and leaves the list it was given alone", () => {
    const list = [...page];
    expect(ids(applyHeldFrames(list, [{ kind: "window", messages: [] }]))).toEqual(ids(page));
    applyHeldFrames(list, [{ kind: "window", messages: [msg("u3", 5)] }]);
    expect(ids(list)).toEqual(ids(page));
  });
});

describe("TranscriptFrameHold", () => {
  const window = (id: string) => JSON.stringify({ type: MessageType.CF_AGENT_CHAT_MESSAGES, messages: [msg(id, 1)] });
  const taken = (hold: TranscriptFrameHold) => {
    const got: HeldFrames[] = [];
    const stop = hold.subscribe((held) => got.push(held));
    return { got, stop };
  };

  it("holds the transcript's frames only while nobody listens, and hands them over once", () => {
    const hold = new TranscriptFrameHold();
    hold.arrived(window("u1"));
    hold.arrived(JSON.stringify({ type: "rooms_presence", users: [] }));
    const first = taken(hold);
    expect(first.got).toEqual([{ frames: [{ kind: "window", messages: [msg("u1", 1)] }], overflowed: false }]);
    // Listening: the framework has this one; nothing is held.
    hold.arrived(window("u2"));
    first.stop();
    expect(taken(hold).got).toEqual([]);
  });

  it("says it dropped the oldest when more came than it keeps", () => {
    const hold = new TranscriptFrameHold(2);
    for (const id of ["u1", "u2", "u3"]) hold.arrived(window(id));
    const [held] = taken(hold).got;
    expect(held.overflowed).toBe(true);
    expect(held.frames.map((f) => (f.kind === "window" ? f.messages[0].id : ""))).toEqual(["u2", "u3"]);
  });

  it("forgets what it held when the socket closes (the reconnect's opening page brings the room)", () => {
    const hold = new TranscriptFrameHold();
    hold.arrived(window("u1"));
    hold.closed();
    expect(taken(hold).got).toEqual([]);
  });
});
