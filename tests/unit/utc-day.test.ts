import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utcDay } from "@/server/domain/rooms/workspace-status";

describe("utcDay", () => {
  it("is the ISO date of the instant, whatever was asked before (its memo never answers for another day)", () => {
    const instant = fc.oneof(
      fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) }),
      // Both sides of midnight, the boundary a stale memo would get wrong.
      fc.integer({ min: -3, max: 3 }).map((ms) => Date.UTC(2026, 11, 2) + ms)
    );
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const now of instants) expect(utcDay(now)).toBe(new Date(now).toISOString().slice(0, 10));
      }),
      { seed: 2026 }
    );
  });
});
