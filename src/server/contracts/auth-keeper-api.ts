/**
 * What the Worker asks of AuthKeeper (agents/auth-keeper.ts): the
 * generated session key, the wrong-token throttle, the new-session
 * throttle and an identity's session standing. Declared here, below the
 * class, so env.ts can type the binding without importing it.
 */
import type { Admission, RateLimit } from "@/server/domain/access/rate-limit";
import type { SessionStanding } from "@/server/domain/access/session-standing";

export interface AuthKeeperApi {
  /** The generated signing key: created once, then always the same. */
  sessionSecret(): string;
  /** One wrong token from the address this keeper is named for. */
  wrongToken(limit: RateLimit, now?: number): Admission;
  /** One new session (a newly minted identity) from the address this keeper is named for. */
  sessionStart(limit: RateLimit, now?: number): Admission;
  /** The session standing of the identity this keeper is named for. */
  sessionStanding(): SessionStanding;
  /** Signs the identity out everywhere: every session issued so far is refused. */
  revokeSessions(): SessionStanding;
  /** The identity's new display name, for every session of it that still stands. */
  renameSessions(name: string): SessionStanding;
}
