/**
 * LimitKeeper: an identity's allowance across every workspace. A plain
 * Durable Object (no agent protocol, no sockets; the Worker never routes a
 * URL to it), one per identity key (domain/access/caller.ts `limitKeys`),
 * asked by overseers (creates, imports, forks, REST sends, searches,
 * uploads) and rooms (socket sends) after their own per-workspace limits
 * have passed (agents/identity-limit-client.ts).
 *
 * The buckets live in memory only. This is abuse control, not billing: a
 * keeper is evicted only after idling longer than any bucket takes to
 * refill (a minute at most, RATE_LIMITS), so an eviction hands back nothing
 * the clock would not have; an identity that keeps pushing keeps its keeper
 * awake. Writing each token to storage would cost a write per message for
 * no gain, and a rare restart (a deploy) forgets at most a minute's spending.
 */
import { DurableObject } from "cloudflare:workers";
import type { LimitKeeperApi } from "@/server/contracts/limit-keeper-api";
import { IdentityBuckets, type LimitKind } from "@/server/domain/access/identity-limits";
import { type Admission, rateScaleFrom } from "@/server/domain/access/rate-limit";
import type { Env } from "@/server/env";

export class LimitKeeper extends DurableObject<Env> implements LimitKeeperApi {
  readonly #buckets = new IdentityBuckets(rateScaleFrom(this.env.RATE_LIMIT_SCALE));

  take(kind: LimitKind, count = 1): Admission {
    return this.#buckets.take(kind, Date.now(), count);
  }
}
