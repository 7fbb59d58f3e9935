/**
 * Token buckets keyed by client: a burst, then a steady refill. Pure except
 * for the clock the caller passes in; kept in memory, so a limit resets when
 * its Durable Object restarts (acceptable for abuse control, not billing).
 */

export interface RateLimit {
  burst: number;
  perMinute: number;
}

export type Admission = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #limit: RateLimit;
  readonly #maxKeys: number;

  constructor(limit: RateLimit, maxKeys = 10_000) {
    this.#limit = limit;
    this.#maxKeys = maxKeys;
  }

  /**
   * Takes `count` tokens (one request that does `count` things, e.g. an
   * import of many rooms). More than the burst takes the whole burst: such a
   * request is let in on a full bucket and leaves it empty.
   */
  take(key: string, now: number, count = 1): Admission {
    const { burst, perMinute } = this.#limit;
    if (burst <= 0 || perMinute <= 0) return { ok: true };
    const need = Math.max(1, Math.min(count, burst));
    const perMs = perMinute / 60_000;
    const bucket = this.#buckets.get(key) ?? { tokens: burst, at: now };
    const tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * perMs);
    if (tokens >= need) {
      this.#remember(key, { tokens: tokens - need, at: now });
      return { ok: true };
    }
    this.#remember(key, { tokens, at: now });
    return { ok: false, retryAfterMs: Math.ceil((need - tokens) / perMs) };
  }

  forget(key: string) {
    this.#buckets.delete(key);
  }

  #remember(key: string, bucket: Bucket) {
    // Bounded memory: the oldest key goes first (Map keeps insertion order).
    this.#buckets.delete(key);
    if (this.#buckets.size >= this.#maxKeys) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    this.#buckets.set(key, bucket);
  }
}

/** Scales a limit by a factor from the environment; 0 turns it off. */
export function scaled(limit: RateLimit, factor: number): RateLimit {
  return { burst: Math.round(limit.burst * factor), perMinute: limit.perMinute * factor };
}

/** `RATE_LIMIT_SCALE` from the environment: a factor of at least 0, else 1. */
export function rateScaleFrom(raw: string | undefined): number {
  const factor = Number(raw ?? "1");
  return Number.isFinite(factor) && factor >= 0 ? factor : 1;
}
