import { describe, expect, it } from "vitest";
import { KEPT_ROOMS, keptRooms } from "@/client/lib/kept-rooms";

describe("keptRooms", () => {
  it("adds a room newly opened after the ones already mounted, in mount order", () => {
    expect(
      keptRooms(
        ["a"],
        new Map([
          ["a", 1],
          ["b", 2]
        ]),
        "b"
      )
    ).toEqual(["a", "b"]);
  });

  it("keeps the same list (same array) when the open room is already mounted", () => {
    const kept = ["a", "b", "c"];
    expect(keptRooms(kept, new Map([["a", 4]]), "a")).toBe(kept);
  });

  it(`keeps ${KEPT_ROOMS} at most, dropping the one left longest ago, not the first mounted`, () => {
    // a was mounted first but is the most recently left; b was left longest ago.
    const lastOpen = new Map([
      ["a", 5],
      ["b", 2],
      ["c", 4],
      ["d", 6]
    ]);
    expect(keptRooms(["a", "b", "c"], lastOpen, "d")).toEqual(["a", "c", "d"]);
  });

  it("never drops the room being opened, even with no record of it", () => {
    const kept = keptRooms(
      ["a", "b", "c"],
      new Map([
        ["a", 3],
        ["b", 1],
        ["c", 2]
      ]),
      "z"
    );
    expect(kept).toContain("z");
    expect(kept).toHaveLength(KEPT_ROOMS);
    expect(kept).not.toContain("b");
  });
});
