/**
 * The session a browser holds after signing in: a JWT (HS256, Hono's own
 * helper over Web Crypto) carrying the user's id, display name and expiry,
 * kept in an HttpOnly cookie. It never holds the access token itself.
 *
 * `gate` ties a session to how the server is guarded when it was issued: a
 * fingerprint of ACCESS_TOKEN (or "open"). Setting, changing or removing the
 * token therefore signs everyone out, as does rotating SESSION_SECRET.
 */
import { sign, verify } from "hono/jwt";
import { type Identity, Identity as IdentitySchema } from "@/shared/identity";

export const SESSION_COOKIE = "rooms_session";
export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

interface SessionClaims {
  sub: string;
  name: string;
  gate: string;
  iat: number;
  exp: number;
}

export async function gateFingerprint(accessToken: string | undefined): Promise<string> {
  if (!accessToken) return "open";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`rooms-gate:${accessToken}`));
  return [...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function issueSession(
  user: { id: string; name: string },
  secret: string,
  gate: string,
  nowSeconds = Math.floor(Date.now() / 1000)
): Promise<string> {
  const claims: SessionClaims = {
    sub: user.id,
    name: user.name,
    gate,
    iat: nowSeconds,
    exp: nowSeconds + SESSION_LIFETIME_SECONDS
  };
  return sign({ ...claims }, secret, "HS256");
}

/** The signed-in user, or null for anything forged, expired, malformed or from another gate. */
export async function readSession(token: string | undefined, secret: string, gate: string): Promise<Identity | null> {
  if (!token || token.length > 4096) return null;
  let payload: Record<string, unknown>;
  try {
    payload = (await verify(token, secret, "HS256")) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (payload.gate !== gate || typeof payload.exp !== "number") return null;
  const identity = IdentitySchema.safeParse({ id: payload.sub, name: payload.name, kind: "user" });
  return identity.success ? identity.data : null;
}

export function newUserId(): string {
  return `u_${crypto.randomUUID()}`;
}
