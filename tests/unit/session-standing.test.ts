import { describe, expect, it } from "vitest";
import {
  FRESH_STANDING,
  type SessionStanding,
  StandingCache,
  standingIdentity
} from "@/server/domain/access/session-standing";

const ann = { id: "u_ann", name: "Ann", kind: "user" as const };

describe("a session's standing", () => {
  it("stands only under its identity's current generation, and speaks under the current name", () => {
    expect(standingIdentity({ identity: ann, generation: 0 }, FRESH_STANDING)).toEqual(ann);
    expect(standingIdentity({ identity: ann, generation: 0 }, { generation: 1, name: null })).toBeNull();
    expect(standingIdentity({ identity: ann, generation: 2 }, { generation: 1, name: null })).toBeNull();
    expect(standingIdentity({ identity: ann, generation: 1 }, { generation: 1, name: "Annie" })).toEqual({
      ...ann,
      name: "Annie"
    });
  });
});

describe("the standing cache", () => {
  it("asks once per identity within its life, then again", async () => {
    const cache = new StandingCache(1_000);
    let loads = 0;
    const load = async (): Promise<SessionStanding> => ({ generation: ++loads, name: null });
    const [a, b] = await Promise.all([cache.get("u_ann", load, 0), cache.get("u_ann", load, 10)]);
    expect([a.generation, b.generation, loads]).toEqual([1, 1, 1]);
    expect((await cache.get("u_ann", load, 999)).generation).toBe(1);
    expect((await cache.get("u_ann", load, 1_000)).generation).toBe(2);
    expect((await cache.get("u_ben", load, 1_000)).generation).toBe(3);
  });

  it("takes what this isolate changed at once, and forgets a failed load", async () => {
    const cache = new StandingCache(1_000);
    await cache.get("u_ann", async () => FRESH_STANDING, 0);
    cache.set("u_ann", { generation: 1, name: null }, 5);
    expect(await cache.get("u_ann", async () => FRESH_STANDING, 6)).toEqual({ generation: 1, name: null });
    await expect(cache.get("u_ben", () => Promise.reject(new Error("down")), 0)).rejects.toThrow("down");
    expect(await cache.get("u_ben", async () => ({ generation: 4, name: null }), 1)).toEqual({
      generation: 4,
      name: null
    });
  });

  it("holds at most its bound, dropping the oldest", async () => {
    const cache = new StandingCache(1_000, 2);
    let loads = 0;
    const load = async () => {
      loads++;
      return FRESH_STANDING;
    };
    for (const id of ["a", "b", "c"]) await cache.get(id, load, 0);
    await cache.get("c", load, 1);
    await cache.get("b", load, 1);
    expect(loads).toBe(3);
    await cache.get("a", load, 1);
    expect(loads).toBe(4);
  });
});
