import { describe, expect, it } from "vitest";
import { mergeSearch, restBatches, searchTheRest } from "../../src/client/lib/search-rest";
import type { SearchResponse, SearchResult } from "../../src/shared/search";

const hit = (roomId: string, messageId: string, score: number, createdAt = 1): SearchResult => ({
  roomId,
  roomName: `Room ${roomId}`,
  messageId,
  role: "user",
  author: "Ann",
  createdAt,
  snippet: "the word",
  marks: [[4, 8]],
  score
});
const missing = (...ids: string[]) => ids.map((roomId) => ({ roomId, roomName: `Room ${roomId}` }));
const answer = (results: SearchResult[], missingIds: string[], roomsSearched = 10): SearchResponse => ({
  results,
  partial: missingIds.length > 0,
  roomsSearched,
  missingCount: missingIds.length,
  missingRooms: missing(...missingIds)
});

describe("search the rest", () => {
  it("merges the missing rooms' matches in, ranked, one entry per message, within the limit", () => {
    const base = answer([hit("a", "a1", 3), hit("b", "b1", 1)], ["c", "d"]);
    const more = answer([hit("c", "c1", 2), hit("d", "d1", 5), hit("b", "b1", 1)], [], 2);
    const merged = mergeSearch(base, more, ["c", "d"], 3);
    expect(merged.results.map((r) => r.messageId)).toEqual(["d1", "a1", "c1"]);
    expect(merged).toMatchObject({ partial: false, missingCount: 0, missingRooms: [], roomsSearched: 10 });
  });

  it("stays partial for the rooms still missing and for those not asked yet, in their order", () => {
    const base = answer([], ["c", "d", "e"]);
    const merged = mergeSearch(base, answer([hit("d", "d1", 1)], ["c"], 2), ["c", "d"], 10);
    expect(merged.partial).toBe(true);
    expect(merged.missingRooms.map((r) => r.roomId)).toEqual(["c", "e"]);
    expect(merged.missingCount).toBe(2);
  });

  it("breaks score ties newer first, as the server ranks", () => {
    const base = answer([hit("a", "old", 2, 100)], ["b"]);
    const merged = mergeSearch(base, answer([hit("b", "new", 2, 200)], [], 1), ["b"], 10);
    expect(merged.results.map((r) => r.messageId)).toEqual(["new", "old"]);
  });

  it("asks the missing rooms in batches of bounded size, most recent first, reporting each merge", async () => {
    const ids = Array.from({ length: 250 }, (_, i) => `r${i}`);
    const base = answer([], ids, 300);
    expect(restBatches(base).map((b) => b.length)).toEqual([100, 100, 50]);
    const asked: string[][] = [];
    const progress: number[] = [];
    const final = await searchTheRest(
      base,
      20,
      async (roomIds) => {
        asked.push(roomIds);
        return answer([hit(roomIds[0], `${roomIds[0]}-m`, asked.length)], [], roomIds.length);
      },
      (_merged, n) => progress.push(n)
    );
    expect(asked.flat()).toEqual(ids);
    expect(progress).toEqual([100, 200, 250]);
    expect(final.partial).toBe(false);
    expect(final.results.map((r) => r.messageId)).toEqual(["r200-m", "r100-m", "r0-m"]);
  });

  it("rejects when a request fails, after reporting what answered before it", async () => {
    const base = answer(
      [],
      Array.from({ length: 150 }, (_, i) => `r${i}`)
    );
    const seen: number[] = [];
    let calls = 0;
    await expect(
      searchTheRest(
        base,
        20,
        async (roomIds) => {
          if (calls++ === 1) throw new Error("network down");
          return answer([], [], roomIds.length);
        },
        (merged) => seen.push(merged.missingCount)
      )
    ).rejects.toThrow("network down");
    expect(seen).toEqual([50]);
  });
});
