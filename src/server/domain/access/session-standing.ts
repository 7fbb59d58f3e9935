/**
 * Whether a signed session still stands: a cookie is a JWT good for 30 days
 * by its signature alone, so signing out could not end it and a rename left
 * the old cookie speaking under the old name. Each identity therefore has a
 * standing, kept durably by its AuthKeeper ("session:<identity id>"): a
 * session generation, which signing out raises (every cookie issued under an
 * older one is refused), and the identity's current display name, which a
 * rename sets (every cookie still standing speaks under it).
 *
 * Asking the keeper on every request would add a Durable Object round trip
 * to each; instead each isolate keeps an identity's standing for
 * SESSION_STANDING_TTL_MS. The isolate that signs someone out or renames
 * them learns at once; another isolate may honour an old cookie, or show
 * the old name, for at most that long. Pure: no storage, no clock of its own.
 */
import type { Identity } from "@/shared/identity";

export interface SessionStanding {
  /** Sessions issued under an older generation are refused. */
  generation: number;
  /** The name set by the latest rename; null: the one in the cookie. */
  name: string | null;
}

/** An identity nobody has signed out or renamed: every cookie of generation 0 stands. */
export const FRESH_STANDING: SessionStanding = Object.freeze({ generation: 0, name: null });

/** How long an isolate trusts an identity's standing without asking its keeper again. */
const SESSION_STANDING_TTL_MS = 30_000;
/** Identities one isolate remembers; past this, the oldest entry goes first. */
const MAX_CACHED_STANDINGS = 10_000;

/** The identity a session speaks for, or null when it was issued before its identity signed out. */
export function standingIdentity(
  session: { identity: Identity; generation: number },
  standing: SessionStanding
): Identity | null {
  if (session.generation !== standing.generation) return null;
  return standing.name ? { ...session.identity, name: standing.name } : session.identity;
}

/**
 * Standings by identity id, each for `ttlMs`. Concurrent requests of one
 * identity share one load; a failed load is forgotten, not cached.
 */
export class StandingCache {
  readonly #entries = new Map<string, { standing: Promise<SessionStanding>; until: number }>();

  constructor(
    private readonly ttlMs = SESSION_STANDING_TTL_MS,
    private readonly max = MAX_CACHED_STANDINGS
  ) {}

  get(id: string, load: () => Promise<SessionStanding>, now = Date.now()): Promise<SessionStanding> {
    const cached = this.#entries.get(id);
    if (cached && cached.until > now) return cached.standing;
    const standing = load();
    this.#store(id, standing, now);
    standing.catch(() => {
      if (this.#entries.get(id)?.standing === standing) this.#entries.delete(id);
    });
    return standing;
  }

  /** What this isolate itself just changed (a sign-out, a rename): known at once. */
  set(id: string, standing: SessionStanding, now = Date.now()) {
    this.#store(id, Promise.resolve(standing), now);
  }

  #store(id: string, standing: Promise<SessionStanding>, now: number) {
    this.#entries.delete(id);
    this.#entries.set(id, { standing, until: now + this.ttlMs });
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
