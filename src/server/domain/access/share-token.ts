/**
 * Share tokens: what a `/share/<token>` link carries. A JWT (HS256, Hono's
 * helper, as sessions are) naming the share, its workspace and room, and,
 * when it expires, when. Signed with a key derived from the session secret
 * for this purpose only, so a session can never pass for a share nor the
 * reverse; rotating SESSION_SECRET ends every link as it ends every session.
 *
 * The signature alone cannot be revoked, so the overseer also keeps each
 * share's row with the token's SHA-256: a token is good only while that row
 * exists and matches. Signing is deterministic, so a member's list can show
 * a link again without the server ever storing the token itself.
 */
import { sign, verify } from "hono/jwt";
import { z } from "zod";
import { WORKSPACE_PATTERN } from "@/shared/constants";
import { MAX_SHARE_TOKEN_LENGTH, SHARE_ID_PATTERN } from "@/shared/shares";

export interface ShareClaims {
  shareId: string;
  workspace: string;
  roomId: string;
  /** Epoch seconds. */
  issuedAt: number;
  /** Epoch seconds; null for a link that lasts until revoked. */
  expiresAt: number | null;
}

const SHARE_TYPE = "rooms-share";

const Payload = z.object({
  typ: z.literal(SHARE_TYPE),
  sid: z.string().regex(SHARE_ID_PATTERN),
  ws: z.string().regex(WORKSPACE_PATTERN),
  room: z.string().min(1).max(128),
  iat: z.number().int(),
  exp: z.number().int().optional()
});

function shareKey(secret: string): string {
  return `share-link:${secret}`;
}

export function newShareId(): string {
  return `sh_${crypto.randomUUID()}`;
}

/** Seconds since the epoch at which a link made at `nowMs` stops working, or null. */
export function shareExpiry(nowMs: number, expiresInSeconds: number | undefined): number | null {
  return expiresInSeconds === undefined ? null : Math.floor(nowMs / 1000) + expiresInSeconds;
}

/** The same claims always give the same token (fixed key order, deterministic HS256). */
export function issueShareToken(claims: ShareClaims, secret: string): Promise<string> {
  const payload: Record<string, string | number> = {
    typ: SHARE_TYPE,
    sid: claims.shareId,
    ws: claims.workspace,
    room: claims.roomId,
    iat: claims.issuedAt
  };
  if (claims.expiresAt !== null) payload.exp = claims.expiresAt;
  return sign(payload, shareKey(secret), "HS256");
}

/** The claims of a well-formed, correctly signed, unexpired share token; null for anything else. */
export async function readShareToken(token: string | undefined, secret: string): Promise<ShareClaims | null> {
  if (!token || token.length > MAX_SHARE_TOKEN_LENGTH) return null;
  let raw: unknown;
  try {
    raw = await verify(token, shareKey(secret), "HS256");
  } catch {
    return null; // forged, expired, malformed
  }
  const parsed = Payload.safeParse(raw);
  if (!parsed.success) return null;
  const { sid, ws, room, iat, exp } = parsed.data;
  return { shareId: sid, workspace: ws, roomId: room, issuedAt: iat, expiresAt: exp ?? null };
}

/** What the overseer stores instead of the token. */
export async function hashShareToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
