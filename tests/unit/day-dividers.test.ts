import { describe, expect, it } from "vitest";
import { dayLabel, startsNewDay } from "../../src/client/lib/day-dividers";

const at = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).getTime();

describe("day dividers", () => {
  it("starts a new day at the first message and at each local midnight crossed", () => {
    expect(startsNewDay(undefined, at(2026, 11, 30))).toBe(true);
    expect(startsNewDay(at(2026, 11, 30, 9), at(2026, 11, 30, 23))).toBe(false);
    expect(startsNewDay(at(2026, 11, 30, 23), at(2026, 12, 1, 0))).toBe(true);
    expect(startsNewDay(at(2026, 11, 30), undefined)).toBe(false);
  });

  it("names today, yesterday, then dates, with the year only when it differs", () => {
    const now = at(2026, 12, 1, 10);
    expect(dayLabel(at(2026, 12, 1, 1), now, "en-GB")).toBe("Today");
    expect(dayLabel(at(2026, 11, 30, 23), now, "en-GB")).toBe("Yesterday");
    expect(dayLabel(at(2026, 11, 2), now, "en-GB")).toBe("Monday 2 November");
    expect(dayLabel(at(2025, 11, 2), now, "en-GB")).toContain("2025");
  });
});
