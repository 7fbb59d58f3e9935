/**
 * The session a browser holds after signing in: a JWT (HS256, Hono's own
 * helper over Web Crypto) carrying the user's id, display name and expiry,
 * kept in an HttpOnly cookie. It never holds the access token itself.
 *
 * `gate` ties a session to how the server is guarded when it was issued: a
 * fingerprint of ACCESS_TOKEN (or "open"). Setting, changing or removing the
 * token therefore signs everyone out, as does rotating SESSION_SECRET.
 * `gen` is the identity's session generation when it was issued: signing out
 * raises it, so the signature alone no longer makes a cookie good
 * (domain/access/session-standing.ts).
 */
import { sign, verify } from "hono/jwt";
import { type Identity, Identity as IdentitySchema } from "@/shared/identity";

export const SESSION_COOKIE = "rooms_session";
export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

interface SessionClaims {
  sub: string;
  name: string;
  gate: string;
  gen: number;
  iat: number;
  exp: number;
}

export async function gateFingerprint(accessToken: string | undefined): Promise<string> {
  if (!accessToken) return "open";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`rooms-gate:${accessToken}`));
  return [...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function issueSession(
  user: { id: string; name: string; generation?: number },
  secret: string,
  gate: string,
  nowSeconds = Math.floor(Date.now() / 1000)
): Promise<string> {
  const claims: SessionClaims = {
    sub: user.id,
    name: user.name,
    gate,
    gen: user.generation ?? 0,
    iat: nowSeconds,
    exp: nowSeconds + SESSION_LIFETIME_SECONDS
  };
  return sign({ ...claims }, secret, "HS256");
}

/** A session's signed claims: who, and under which generation (a cookie without one predates generations: 0). */
export interface ReadSession {
  identity: Identity;
  generation: number;
}

/**
 * The signed-in user and the session's generation, or null for anything
 * forged, expired, malformed or from another gate. Whether the generation
 * still stands is the caller's to check (http/access.ts).
 */
export async function readSession(
  token: string | undefined,
  secret: string,
  gate: string
): Promise<ReadSession | null> {
  if (!token || token.length > 4096) return null;
  let payload: Record<string, unknown>;
  try {
    payload = (await verify(token, secret, "HS256")) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (payload.gate !== gate || typeof payload.exp !== "number") return null;
  const generation = payload.gen ?? 0;
  if (typeof generation !== "number" || !Number.isSafeInteger(generation) || generation < 0) return null;
  const identity = IdentitySchema.safeParse({ id: payload.sub, name: payload.name, kind: "user" });
  return identity.success ? { identity: identity.data, generation } : null;
}

export function newUserId(): string {
  return `u_${crypto.randomUUID()}`;
}
