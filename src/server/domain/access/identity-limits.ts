/**
 * Limits one identity carries across every workspace it can reach. The
 * overseers' and rooms' own limiters are per workspace (or per room), so a
 * person with access to five workspaces would get five allowances; these
 * buckets, held by one keeper per identity key (agents/limit-keeper.ts),
 * make an identity that is over its limit in one workspace over it in all.
 * Pure: the keeper holds one `IdentityBuckets`, and the jobs that ask it
 * depend on `IdentityLimits`, never on the keeper's class.
 */
import { FILE_UPLOAD_RATE, RATE_LIMITS } from "@/shared/constants";
import { type Admission, type RateLimit, RateLimiter, scaled } from "./rate-limit";

/** What is limited across workspaces: messages (REST and socket), new rooms (create, import, fork), uploads, searches. */
export type LimitKind = "send" | "create" | "upload" | "search";

/** The same allowance an identity has in one workspace today, now shared by all of them. */
export const IDENTITY_LIMITS: Readonly<Record<LimitKind, RateLimit>> = {
  send: RATE_LIMITS.restSend,
  create: RATE_LIMITS.restRoomCreate,
  upload: FILE_UPLOAD_RATE,
  search: RATE_LIMITS.restSearch
};

/** One identity's buckets, one per kind, scaled by RATE_LIMIT_SCALE (0: every kind is off). */
export class IdentityBuckets {
  readonly #limiter: Record<LimitKind, RateLimiter>;

  constructor(scale: number) {
    this.#limiter = {
      send: new RateLimiter(scaled(IDENTITY_LIMITS.send, scale), 1),
      create: new RateLimiter(scaled(IDENTITY_LIMITS.create, scale), 1),
      upload: new RateLimiter(scaled(IDENTITY_LIMITS.upload, scale), 1),
      search: new RateLimiter(scaled(IDENTITY_LIMITS.search, scale), 1)
    };
  }

  take(kind: LimitKind, now: number, count = 1): Admission {
    return this.#limiter[kind].take(kind, now, count);
  }
}

/**
 * Asks an identity's cross-workspace bucket for one token of `kind`. Jobs
 * call it after their own, cheaper limits have passed, so a flood is
 * stopped locally before it reaches the keeper.
 */
export interface IdentityLimits {
  take(identityKey: string, kind: LimitKind, count?: number): Promise<Admission>;
}

/** When RATE_LIMIT_SCALE is 0: everything passes, and nobody is asked. */
export const NO_IDENTITY_LIMITS: IdentityLimits = { take: async () => ({ ok: true }) };
