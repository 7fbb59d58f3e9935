/**
 * What the Worker asks of AuthKeeper (agents/auth-keeper.ts): the
 * generated session key, the wrong-token throttle and the new-session
 * throttle. Declared here, below the class, so env.ts can type the binding
 * without importing it.
 */
import type { Admission, RateLimit } from "@/server/domain/access/rate-limit";

export interface AuthKeeperApi {
  /** The generated signing key: created once, then always the same. */
  sessionSecret(): string;
  /** One token attempt from the address this keeper is named for. */
  tokenAttempt(correct: boolean, limit: RateLimit, now?: number): Admission;
  /** One new session (a newly minted identity) from the address this keeper is named for. */
  sessionStart(limit: RateLimit, now?: number): Admission;
}
