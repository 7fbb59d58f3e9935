import { describe, expect, it } from "vitest";
import { RateLimiter, scaled } from "@/server/domain/access/rate-limit";

describe("RateLimiter", () => {
  it("takes several tokens for a request that does several things, and at most the whole burst", () => {
    const limiter = new RateLimiter({ burst: 30, perMinute: 30 });
    expect(limiter.take("a", 0, 10)).toEqual({ ok: true });
    expect(limiter.take("a", 0, 20)).toEqual({ ok: true });
    // Empty now: one more waits for a token (2 s at 30 a minute).
    expect(limiter.take("a", 0)).toEqual({ ok: false, retryAfterMs: 2_000 });
    // 200 on a full bucket: let in, and the bucket is empty after.
    expect(limiter.take("b", 0, 200)).toEqual({ ok: true });
    expect(limiter.take("b", 0).ok).toBe(false);
    // Asking for 5 with 2 in the bucket waits for the 3 missing.
    const c = new RateLimiter({ burst: 5, perMinute: 60 });
    expect(c.take("c", 0, 3).ok).toBe(true);
    expect(c.take("c", 0, 5)).toEqual({ ok: false, retryAfterMs: 3_000 });
  });

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
