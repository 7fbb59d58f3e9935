import { describe, expect, it } from "vitest";
import { firstUnread } from "@/client/lib/first-unread";
import { advanceMark, furthest, readPosition } from "@/server/domain/rooms/read-positions";
import { unreadCount } from "@/shared/unread";

const window = (...ids: string[]) => ids.map((id) => ({ id }));

describe("readPosition", () => {
  it("is the room's count when the reader shows the newest stored message", () => {
    expect(readPosition(window("a", "b", "c"), 40, "c")).toEqual({ count: 40, messageId: "c" });
  });

  it("leaves messages after the one the reader shows unread", () => {
    expect(readPosition(window("a", "b", "c", "d"), 40, "b")).toEqual({ count: 38, messageId: "b" });
  });

  it("takes an id the room has not stored yet (a streaming answer) as having seen everything stored", () => {
    expect(readPosition(window("a", "b"), 7, "streaming")).toEqual({ count: 7, messageId: "b" });
    expect(readPosition(window("a", "b"), 7, undefined)).toEqual({ count: 7, messageId: "b" });
  });

  it("never claims more than the room holds, nor less than nothing", () => {
    expect(readPosition(window(), 0, "x")).toEqual({ count: 0, messageId: null });
    // A window longer than the count (cannot happen, but must not go negative).
    expect(readPosition(window("a", "b", "c"), 1, "a")).toEqual({ count: 0, messageId: "a" });
  });
});

describe("advanceMark", () => {
  const mark = { roomId: "r", count: 10, messageId: "m10" };

  it("stores a first mark and moves forward", () => {
    expect(advanceMark(undefined, mark)).toEqual(mark);
    expect(advanceMark(mark, { roomId: "r", count: 12, messageId: "m12" })).toEqual({
      roomId: "r",
      count: 12,
      messageId: "m12"
    });
  });

  it("never moves back, so an older tab cannot undo a newer one", () => {
    expect(advanceMark(mark, { roomId: "r", count: 9, messageId: "m9" })).toBeNull();
    expect(advanceMark(mark, { ...mark })).toBeNull();
  });

  it("takes a newer message id at the same count, but not a missing one", () => {
    expect(advanceMark(mark, { roomId: "r", count: 10, messageId: "other" })?.messageId).toBe("other");
    expect(advanceMark(mark, { roomId: "r", count: 10, messageId: null })).toBeNull();
  });

  it("refuses impossible counts", () => {
    expect(advanceMark(undefined, { roomId: "r", count: -1, messageId: null })).toBeNull();
    expect(advanceMark(undefined, { roomId: "r", count: 1.5, messageId: null })).toBeNull();
    expect(advanceMark(undefined, { roomId: "r", count: Number.NaN, messageId: null })).toBeNull();
  });
});

describe("furthest", () => {
  it("keeps the further of two reports from one reader", () => {
    const near = { identityId: "ann", count: 3, messageId: "c" };
    const far = { identityId: "ann", count: 5, messageId: "e" };
    expect(furthest(undefined, near)).toBe(near);
    expect(furthest(far, near)).toBe(far);
    expect(furthest(near, far)).toBe(far);
  });
});

describe("unreadCount", () => {
  it("counts everything when the person has never read the room", () => {
    expect(unreadCount(4, undefined)).toBe(4);
  });
  it("is the room's count past the mark, never negative", () => {
    expect(unreadCount(10, { count: 7 })).toBe(3);
    expect(unreadCount(5, { count: 7 })).toBe(0);
  });
});

describe("firstUnread", () => {
  const msg = (id: string, author?: string) => ({
    id,
    role: author ? "user" : "assistant",
    metadata: author ? { author: { id: author, name: author } } : undefined
  });
  const list = [msg("a", "ben"), msg("b"), msg("c", "ann"), msg("d"), msg("e", "ann")];

  it("starts right after the message the reader last saw", () => {
    const mark = { roomId: "r", count: 2, messageId: "b" };
    expect(firstUnread(list, { unread: 3, mark }, "ben")).toEqual({ index: 2, count: 3 });
  });

  it("counts from the end when the last-seen message is not loaded", () => {
    const mark = { roomId: "r", count: 40, messageId: "older" };
    expect(firstUnread(list, { unread: 2, mark }, "ben")).toEqual({ index: 3, count: 2 });
  });

  it("starts at the top, announcing the whole count, when more are unread than loaded", () => {
    expect(firstUnread(list, { unread: 60, mark: undefined }, "zed")).toEqual({ index: 0, count: 60 });
  });

  it("skips the reader's own messages at the start of the new stretch", () => {
    const mark = { roomId: "r", count: 1, messageId: "a" };
    expect(firstUnread([msg("a"), msg("b", "ann"), msg("c")], { unread: 2, mark }, "ann")).toEqual({
      index: 2,
      count: 1
    });
    expect(firstUnread([msg("a"), msg("b", "ann")], { unread: 1, mark }, "ann")).toBeNull();
  });

  it("is nothing when nothing is unread", () => {
    expect(firstUnread(list, { unread: 0, mark: undefined }, "ben")).toBeNull();
    expect(firstUnread([], { unread: 3, mark: undefined }, "ben")).toBeNull();
  });
});
