import { describe, expect, it } from "vitest";
import { RateLimiter, scaled } from "@/server/domain/access/rate-limit";

describe("RateLimiter", () => {
  it("admits a burst, then refuses with the time until the next token", () => {
    const limiter = new RateLimiter({ burst: 3, perMinute: 60 });
    expect([1, 2, 3].map(() => limiter.take("a", 0).ok)).toEqual([true, true, true]);
    expect(limiter.take("a", 0)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(limiter.take("a", 999).ok).toBe(false);
    expect(limiter.take("a", 1000).ok).toBe(true);
  });

  it("keeps clients apart", () => {
    const limiter = new RateLimiter({ burst: 1, perMinute: 1 });
    expect(limiter.take("a", 0).ok).toBe(true);
    expect(limiter.take("a", 0).ok).toBe(false);
    expect(limiter.take("b", 0).ok).toBe(true);
  });

  it("never holds more than its key bound", () => {
    const limiter = new RateLimiter({ burst: 1, perMinute: 1 }, 2);
    limiter.take("a", 0);
    limiter.take("b", 0);
    limiter.take("c", 0); // evicts a
    expect(limiter.take("a", 0).ok).toBe(true);
  });

  it("is off when scaled by zero", () => {
    const limiter = new RateLimiter(scaled({ burst: 1, perMinute: 1 }, 0));
    for (let i = 0; i < 100; i++) expect(limiter.take("a", 0).ok).toBe(true);
  });
});
