import { describe, expect, it } from "vitest";
import { isGrouped } from "@/client/lib/message-grouping";
import type { RoomMessage } from "@/client/lib/messages";
import { ReactionStore, reactionsInFrame } from "@/client/lib/reaction-store";
import { ReactionBody } from "@/shared/reactions";

const answer = (id: string, answers: string, createdAt: number): RoomMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text: id }],
  metadata: { answers, createdAt }
});

describe("grouping answers", () => {
  it("keeps answers to different questions under headers of their own", () => {
    expect(isGrouped(answer("a1", "q1", 1_000), answer("a2", "q2", 2_000))).toBe(false);
    expect(isGrouped(answer("a1", "q1", 1_000), answer("a2", "q1", 2_000))).toBe(true);
  });
});

describe("reaction emoji", () => {
  it("takes one emoji (flags, keycaps, skin tones, families) and refuses anything else", () => {
    for (const emoji of ["👍", "❤️", "🇫🇷", "1️⃣", "👍🏽", "👨‍👩‍👧"]) {
      expect(ReactionBody.safeParse({ emoji }).success, emoji).toBe(true);
    }
    for (const emoji of ["", "a", "👍👍", " 👍", "1", "<script>", "👍".repeat(20)]) {
      expect(ReactionBody.safeParse({ emoji }).success, emoji).toBe(false);
    }
    expect(ReactionBody.safeParse({ emoji: "👍", by: "Mallory" }).success).toBe(false);
  });
});

describe("the reactions store", () => {
  it("tells only the message that changed, and an empty list clears it", () => {
    const store = new ReactionStore();
    const heard: string[] = [];
    store.subscribe("m1", () => heard.push("m1"));
    store.subscribe("m2", () => heard.push("m2"));
    store.merge({ m1: [{ emoji: "👍", by: [{ id: "u1", name: "Ann" }] }] });
    expect(heard).toEqual(["m1"]);
    expect(store.of("m1")[0]?.by[0]?.name).toBe("Ann");
    store.merge({ m1: [] });
    expect(store.of("m1")).toEqual([]);
    expect(heard).toEqual(["m1", "m1"]);
  });

  it("lets a page read over REST fill in only what the socket has not told since its opening page", () => {
    const ann = { id: "u1", name: "Ann" };
    const thumbs = [{ emoji: "👍", by: [ann] }];
    const heart = [{ emoji: "❤️", by: [ann] }];
    const store = new ReactionStore();
    const messages = [{ id: "m1" }, { id: "m2" }, { id: "m3" }];
    // The socket's opening page: m1 has 👍; then a frame: ❤️ on m2.
    store.opened({ messages: messages.slice(0, 2), reactions: { m1: thumbs } });
    store.live({ m2: heart });
    // A page read earlier, arriving late, says m1 and m2 have nothing and m3 has 👍.
    store.page({ messages, reactions: { m3: thumbs } });
    expect(store.of("m1")).toEqual(thumbs);
    expect(store.of("m2")).toEqual(heart);
    expect(store.of("m3")).toEqual(thumbs);
    // A page's message listed with no reactions has none (it lists only those with some).
    store.page({ messages: [{ id: "m3" }], reactions: {} });
    expect(store.of("m3")).toEqual([]);
    // A new connection's opening page is the socket's word again, from scratch.
    store.opened({ messages: [{ id: "m1" }], reactions: {} });
    expect(store.of("m1")).toEqual([]);
    store.page({ messages: [{ id: "m2" }], reactions: {} });
    expect(store.of("m2")).toEqual([]);
  });

  it("reads only rooms_reactions frames", () => {
    const reactions = { m1: [{ emoji: "🎉", by: [{ id: "u1", name: "Ann" }] }] };
    expect(reactionsInFrame(JSON.stringify({ type: "rooms_reactions", reactions }))).toEqual(reactions);
    expect(reactionsInFrame(JSON.stringify({ type: "rooms_presence", users: [] }))).toBeNull();
    expect(reactionsInFrame('{"type":"rooms_reactions"')).toBeNull();
  });
});
