/**
 * What the overseer lets in over REST: rate limits on new rooms, sends and
 * searches, per identity and per address in this workspace, share-link
 * viewers' requests per address (a viewer has no identity), then per
 * identity across every workspace (asked of its LimitKeeper only once the
 * local limits pass, so they still shield it), searches running at once
 * (RATE_LIMIT_SCALE=0 turns all of these off), and the workspace's room
 * cap, counting rooms still being made so concurrent creations, imports and
 * forks cannot overshoot it.
 */

import { AppError, rateLimited } from "@/server/app-error";
import { addressKey } from "@/server/domain/access/address-key";
import { type Caller, limitKeys } from "@/server/domain/access/caller";
import type { IdentityLimits, LimitKind } from "@/server/domain/access/identity-limits";
import { RateLimiter, rateScaleFrom, scaled } from "@/server/domain/access/rate-limit";
import {
  ADDRESS_LIMIT_FACTOR,
  MAX_ROOMS_PER_WORKSPACE,
  MAX_SEARCHES_PER_IDENTITY,
  MAX_SEARCHES_PER_WORKSPACE,
  RATE_LIMITS
} from "@/shared/constants";

export class WorkspaceAdmission {
  #createLimiter: RateLimiter;
  #createAddressLimiter: RateLimiter;
  #sendLimiter: RateLimiter;
  #sendAddressLimiter: RateLimiter;
  #searchLimiter: RateLimiter;
  #searchAddressLimiter: RateLimiter;
  #shareViewLimiter: RateLimiter;
  /** Searches running now, by identity key; none are counted when limits are off. */
  #searching = new Map<string, number>();
  #searchingTotal = 0;
  #limitsOn: boolean;
  /**
   * Rooms between their cap check and their registry insert. Spawning a
   * facet awaits, and other creations run meanwhile: counting them here,
   * synchronously with the check, is what keeps concurrent creations from
   * overshooting the cap.
   */
  #creating = 0;

  constructor(
    rateLimitScale: string | undefined,
    /** Rooms in the registry now. */
    private readonly roomCount: () => number,
    /** The caller's allowance across workspaces (domain/access/identity-limits.ts). */
    private readonly acrossWorkspaces: IdentityLimits
  ) {
    const scale = rateScaleFrom(rateLimitScale);
    this.#createLimiter = new RateLimiter(scaled(RATE_LIMITS.restRoomCreate, scale));
    this.#createAddressLimiter = new RateLimiter(scaled(RATE_LIMITS.restRoomCreate, scale * ADDRESS_LIMIT_FACTOR));
    this.#sendLimiter = new RateLimiter(scaled(RATE_LIMITS.restSend, scale));
    this.#sendAddressLimiter = new RateLimiter(scaled(RATE_LIMITS.restSend, scale * ADDRESS_LIMIT_FACTOR));
    this.#searchLimiter = new RateLimiter(scaled(RATE_LIMITS.restSearch, scale));
    this.#searchAddressLimiter = new RateLimiter(scaled(RATE_LIMITS.restSearch, scale * ADDRESS_LIMIT_FACTOR));
    this.#shareViewLimiter = new RateLimiter(scaled(RATE_LIMITS.shareViews, scale));
    this.#limitsOn = scale > 0;
  }

  /**
   * One request of a share-link viewer (any viewer route, the live socket
   * included), by its address (IPv6 by /64): checked before the link or the
   * room is read, so a flood of viewer requests is refused here and never
   * reaches the room. Throws a 429 AppError.
   */
  admitShareView(address: string) {
    const admission = this.#shareViewLimiter.take(`ip:${addressKey(address)}`, Date.now());
    if (!admission.ok) throw rateLimited(admission.retryAfterMs, "requests to shared rooms from your address");
  }

  /**
   * Admits a search (rate limit, searches running at once for this identity
   * and in the workspace, then the identity's rate across workspaces) and
   * returns its release, to call when it ends; throws a 429 AppError.
   */
  async admitSearch(caller: Caller): Promise<() => void> {
    admit(this.#searchLimiter, this.#searchAddressLimiter, caller, "searches");
    if (!this.#limitsOn) return () => {};
    const key = limitKeys(caller).identity;
    const mine = this.#searching.get(key) ?? 0;
    if (mine >= MAX_SEARCHES_PER_IDENTITY)
      throw new AppError(
        "rate_limited:requests",
        429,
        `You have ${MAX_SEARCHES_PER_IDENTITY} searches running; wait for one to finish.`,
        1
      );
    if (this.#searchingTotal >= MAX_SEARCHES_PER_WORKSPACE)
      throw new AppError(
        "rate_limited:requests",
        429,
        `${MAX_SEARCHES_PER_WORKSPACE} searches are running in this workspace; try again in a moment.`,
        1
      );
    // Counted before the keeper is asked (an await): searches arriving meanwhile see this one.
    this.#searching.set(key, mine + 1);
    this.#searchingTotal += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#searchingTotal -= 1;
      const left = (this.#searching.get(key) ?? 1) - 1;
      if (left > 0) this.#searching.set(key, left);
      else this.#searching.delete(key);
    };
    try {
      await this.#across(caller, "search", "searches");
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /** Rate limits on creating, importing and forking rooms, here and across workspaces; throws a 429 AppError. */
  async admitNewRooms(caller: Caller, count = 1) {
    admit(this.#createLimiter, this.#createAddressLimiter, caller, "new rooms", count);
    await this.#across(caller, "create", "new rooms", count);
  }

  /** Rate limits on REST sends, here and across workspaces; throws a 429 AppError. */
  async admitMessages(caller: Caller) {
    admit(this.#sendLimiter, this.#sendAddressLimiter, caller, "messages");
    await this.#across(caller, "send", "messages");
  }

  /**
   * Holds `count` room slots under the workspace's cap until the returned
   * release is called (in a `finally`, once the rooms are registered or
   * discarded); throws a 409 AppError when they do not fit.
   */
  holdRooms(count: number): () => void {
    const n = this.roomCount();
    if (n + this.#creating + count > MAX_ROOMS_PER_WORKSPACE) {
      throw new AppError(
        "conflict:room_limit",
        409,
        count === 1
          ? `This workspace already has ${MAX_ROOMS_PER_WORKSPACE} rooms, the most it can hold. Delete one first.`
          : `This workspace has ${n} of at most ${MAX_ROOMS_PER_WORKSPACE} rooms; ${count} more do not fit. Delete some first.`
      );
    }
    this.#creating += count;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#creating -= count;
    };
  }

  /** One token of the caller's allowance across workspaces; throws a 429 AppError without one. */
  async #across(caller: Caller, kind: LimitKind, what: string, count = 1) {
    if (!this.#limitsOn) return;
    const admission = await this.acrossWorkspaces.take(limitKeys(caller).identity, kind, count);
    if (!admission.ok) throw rateLimited(admission.retryAfterMs, what);
  }
}

function admit(byIdentity: RateLimiter, byAddress: RateLimiter, caller: Caller, what: string, count = 1) {
  const keys = limitKeys(caller);
  const now = Date.now();
  for (const admission of [byIdentity.take(keys.identity, now, count), byAddress.take(keys.address, now, count)]) {
    if (!admission.ok) throw rateLimited(admission.retryAfterMs, what);
  }
}
