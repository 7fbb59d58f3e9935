import { describe, expect, it } from "vitest";
import { PREFETCH_FRESH_MS, roomPrefetch } from "../../src/client/lib/room-prefetch";
import type { MessagePage } from "../../src/shared/protocol";

const pageOf = (roomId: string): MessagePage => ({ messages: [], nextCursor: roomId });

function setup() {
  const loads: string[] = [];
  let clock = 1_000;
  const fail = new Set<string>();
  const cache = roomPrefetch(
    (roomId) => {
      loads.push(roomId);
      return fail.has(roomId) ? Promise.reject(new Error("offline")) : Promise.resolve(pageOf(roomId));
    },
    () => clock
  );
  return { cache, loads, fail, tick: (ms: number) => (clock += ms) };
}

describe("room prefetch", () => {
  it("loads a room once while its page is fresh, and hands the page over once", async () => {
    const { cache, loads } = setup();
    cache.prefetch("a");
    cache.prefetch("a");
    expect(loads).toEqual(["a"]);
    expect(await cache.take("a")).toEqual(pageOf("a"));
    expect(cache.take("a")).toBeNull();
  });

  it("gives no page that is no longer fresh, and fetches again after it", () => {
    const { cache, loads, tick } = setup();
    cache.prefetch("a");
    tick(PREFETCH_FRESH_MS);
    cache.prefetch("a");
    expect(loads).toEqual(["a", "a"]);
    tick(PREFETCH_FRESH_MS);
    expect(cache.take("a")).toBeNull();
  });

  it("forgets a failed page, so the room's own request is made and reports", async () => {
    const { cache, fail } = setup();
    fail.add("a");
    cache.prefetch("a");
    await Promise.resolve();
    await Promise.resolve();
    expect(cache.take("a")).toBeNull();
  });

  it("holds a few rooms at most, the oldest going first", () => {
    const { cache } = setup();
    for (const id of ["a", "b", "c", "d", "e"]) cache.prefetch(id);
    expect(cache.take("a")).toBeNull();
    expect(cache.take("e")).not.toBeNull();
    expect(cache.take("b")).not.toBeNull();
  });
});
