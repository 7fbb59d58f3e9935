import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planRoomSearch, type SearchableRoom } from "@/server/domain/search/search-plan";

const room = (id: string, lastActiveAt: number, messageCount = 4): SearchableRoom => ({
  id,
  name: `Room ${id}`,
  last_active_at: lastActiveAt,
  message_count: messageCount
});

describe("search plan", () => {
  it("asks the most recently active rooms first, ties by id", () => {
    const plan = planRoomSearch([room("a", 10), room("c", 30), room("b", 20), room("d", 30)]);
    expect(plan.ask.map((r) => r.id)).toEqual(["c", "d", "b", "a"]);
    expect(plan.empty).toEqual([]);
  });

  it("does not ask rooms the registry knows are empty, but keeps them in scope", () => {
    const plan = planRoomSearch([room("new", 50, 0), room("old", 10), room("mid", 20)]);
    expect(plan.ask.map((r) => r.id)).toEqual(["mid", "old"]);
    expect(plan.empty.map((r) => r.id)).toEqual(["new"]);
  });

  it("searches only the named rooms of a continued search, in activity order, ignoring unknown ids", () => {
    const rooms = [room("a", 1), room("b", 2), room("c", 3), room("d", 4)];
    const plan = planRoomSearch(rooms, ["a", "gone", "c"]);
    expect(plan.ask.map((r) => r.id)).toEqual(["c", "a"]);
    expect(plan.empty).toEqual([]);
  });

  it("asks every non-empty room exactly once, each no less recent than the next", () => {
    const rooms = fc.uniqueArray(
      fc.record({
        id: fc.stringMatching(/^[a-z0-9]{1,6}$/),
        name: fc.constant("x"),
        last_active_at: fc.integer({ min: 0, max: 50 }),
        message_count: fc.integer({ min: 0, max: 3 })
      }),
      { selector: (r) => r.id, maxLength: 40 }
    );
    fc.assert(
      fc.property(rooms, (all) => {
        const plan = planRoomSearch(all);
        const asked = plan.ask.map((r) => r.id);
        expect(new Set(asked).size).toBe(asked.length);
        expect([...asked].sort()).toEqual(
          all
            .filter((r) => r.message_count > 0)
            .map((r) => r.id)
            .sort()
        );
        expect(plan.ask.length + plan.empty.length).toBe(all.length);
        for (let i = 1; i < plan.ask.length; i++) {
          expect(plan.ask[i - 1].last_active_at).toBeGreaterThanOrEqual(plan.ask[i].last_active_at);
        }
      })
    );
  });
});
