import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memoryWindowBytes, windowStart } from "@/server/domain/turns/memory-window";

describe("the in-memory window", () => {
  it("is twice the context budget in bytes, and at least 64 KiB", () => {
    expect(memoryWindowBytes(8_000)).toBe(65_536);
    expect(memoryWindowBytes(100_000)).toBe(800_000);
    expect(memoryWindowBytes(10)).toBe(65_536);
  });

  it("keeps the longest tail that fits, and always the last question and answer", () => {
    const sizes = [50, 50, 50, 50];
    expect(windowStart(sizes, 120, 2, (n) => n)).toBe(2);
    expect(windowStart(sizes, 1_000, 2, (n) => n)).toBe(0);
    expect(windowStart([10, 500, 500], 100, 2, (n) => n)).toBe(1);
  });

  it("never exceeds the budget beyond the kept minimum, and is the longest such tail (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 80 }),
        fc.integer({ min: 1, max: 3_000 }),
        (sizes, budget) => {
          const start = windowStart(sizes, budget, 2, (n) => n);
          const tail = sizes.slice(start);
          const used = tail.reduce((a, b) => a + b, 0);
          expect(tail.length).toBe(Math.min(sizes.length, Math.max(tail.length, 2)));
          if (tail.length > 2) expect(used).toBeLessThanOrEqual(budget);
          if (start > 0 && tail.length >= 2) expect(used + sizes[start - 1]).toBeGreaterThan(budget);
        }
      )
    );
  });
});
