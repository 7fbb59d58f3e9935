import { describe, expect, it } from "vitest";
import { MessageIdentityCache, type RoomMessage } from "../../src/client/lib/messages";

function msg(id: string, text: string): RoomMessage {
  return { id, role: "user", parts: [{ type: "text", text }], metadata: { createdAt: 1 } };
}

describe("MessageIdentityCache", () => {
  it("returns the object it first saw for a message whose content has not changed", () => {
    const cache = new MessageIdentityCache();
    const first = msg("m1", "hello");
    cache.stabilize([first]);
    // A server snapshot: equal content, new objects.
    const [again] = cache.stabilize([msg("m1", "hello")]);
    expect(again).toBe(first);
  });

  it("returns the new object once a message's content changes, and keeps that one after", () => {
    const cache = new MessageIdentityCache();
    cache.stabilize([msg("m1", "hel")]);
    const grown = msg("m1", "hello");
    expect(cache.stabilize([grown])[0]).toBe(grown);
    expect(cache.stabilize([msg("m1", "hello")])[0]).toBe(grown);
  });

  it("stabilises each message on its own, keeping the list's order", () => {
    const cache = new MessageIdentityCache();
    const a = msg("a", "one");
    const b = msg("b", "two");
    cache.stabilize([a, b]);
    const changedB = msg("b", "two, edited");
    const out = cache.stabilize([msg("a", "one"), changedB, msg("c", "three")]);
    expect(out[0]).toBe(a);
    expect(out[1]).toBe(changedB);
    expect(out.map((m) => m.id)).toEqual(["a", "b", "c"]);
  });

  it("tells metadata changes apart (an error or a stop reason arriving later)", () => {
    const cache = new MessageIdentityCache();
    cache.stabilize([msg("m1", "partial")]);
    const failed: RoomMessage = { ...msg("m1", "partial"), metadata: { createdAt: 1, error: "Model failed" } };
    expect(cache.stabilize([failed])[0]).toBe(failed);
  });

  it("never reuses an unserialisable message (each gets a fresh identity, not a stale one)", () => {
    const cache = new MessageIdentityCache();
    const cyclic = msg("m1", "loop") as RoomMessage & { self?: unknown };
    cyclic.self = cyclic;
    const copy = { ...cyclic };
    cache.stabilize([cyclic]);
    expect(cache.stabilize([copy])[0]).toBe(copy);
  });

  it("forgets messages no longer shown once it grows past its bound, so a returning one is not confused", () => {
    const cache = new MessageIdentityCache();
    const old = msg("old", "x");
    cache.stabilize([old]);
    cache.stabilize(Array.from({ length: 300 }, (_, i) => msg(`n${i}`, "y")));
    cache.stabilize([msg("only", "z")]);
    // "old" was evicted: an equal copy is its own object now.
    const copy = msg("old", "x");
    expect(cache.stabilize([copy])[0]).toBe(copy);
  });
});
