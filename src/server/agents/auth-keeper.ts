/**
 * AuthKeeper: the little state signing in needs that must outlive one
 * Worker isolate. A plain Durable Object (no agent protocol, no sockets;
 * the Worker never routes a URL to it).
 *
 *   AuthKeeper "secret"        the session signing key when SESSION_SECRET
 *                              is not configured
 *   AuthKeeper "ip:<address>"  wrong-token attempts, and new sessions,
 *                              from one address
 *   AuthKeeper "session:<id>"  an identity's session generation and current
 *                              name (domain/access/session-standing.ts)
 *
 * Why the key is stored rather than generated per isolate: sessions are
 * signed with it, so a key that changed on every restart or differed
 * between isolates would sign people out at random. Kept in durable
 * storage, it survives restarts; setting SESSION_SECRET (or changing it)
 * replaces it and so signs everyone out.
 */
import { DurableObject } from "cloudflare:workers";
import type { AuthKeeperApi } from "@/server/contracts/auth-keeper-api";
import type { Admission, RateLimit } from "@/server/domain/access/rate-limit";
import { FRESH_STANDING, type SessionStanding } from "@/server/domain/access/session-standing";
import type { Env } from "@/server/env";

interface Bucket {
  tokens: number;
  at: number;
}

export class AuthKeeper extends DurableObject<Env> implements AuthKeeperApi {
  /** The generated signing key: created once, then always the same. */
  sessionSecret(): string {
    const kv = this.ctx.storage.kv;
    let secret = kv.get<string>("session-secret");
    if (!secret) {
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      secret = btoa(String.fromCharCode(...bytes));
      kv.put("session-secret", secret);
    }
    return secret;
  }

  /**
   * One wrong token from this address; refused once the address has used up
   * its allowance. Right tokens never come here: refusing them too let
   * anyone behind the same address (a shared NAT) lock out whoever holds
   * the token. Stored durably, so an idle eviction does not reset it.
   */
  wrongToken(limit: RateLimit, now = Date.now()): Admission {
    return this.#take("failures", limit, now, 1);
  }

  /**
   * One new session (a new identity) from this address. In open mode every
   * sign-in mints an identity, and per-identity caps hold only per
   * identity: without this, one client could mint as many as it liked.
   * Stored durably, like the token throttle.
   */
  sessionStart(limit: RateLimit, now = Date.now()): Admission {
    return this.#take("sessions", limit, now, 1);
  }

  /** Stored durably: a sign-out must outlast an eviction, or the old cookies would come back. */
  sessionStanding(): SessionStanding {
    return this.ctx.storage.kv.get<SessionStanding>("session-standing") ?? FRESH_STANDING;
  }

  revokeSessions(): SessionStanding {
    const current = this.sessionStanding();
    return this.#putStanding({ ...current, generation: current.generation + 1 });
  }

  renameSessions(name: string): SessionStanding {
    return this.#putStanding({ ...this.sessionStanding(), name });
  }

  #putStanding(standing: SessionStanding): SessionStanding {
    this.ctx.storage.kv.put("session-standing", standing);
    return standing;
  }

  /** Takes `cost` tokens (0: only checks) from the stored bucket `key`; refused below one token. */
  #take(key: string, limit: RateLimit, now: number, cost: number): Admission {
    if (limit.burst <= 0 || limit.perMinute <= 0) return { ok: true };
    const kv = this.ctx.storage.kv;
    const perMs = limit.perMinute / 60_000;
    const stored = kv.get<Bucket>(key) ?? { tokens: limit.burst, at: now };
    const tokens = Math.min(limit.burst, stored.tokens + (now - stored.at) * perMs);
    if (tokens < 1) {
      kv.put(key, { tokens, at: now });
      return { ok: false, retryAfterMs: Math.ceil((1 - tokens) / perMs) };
    }
    if (cost > 0) kv.put(key, { tokens: tokens - cost, at: now });
    return { ok: true };
  }
}
