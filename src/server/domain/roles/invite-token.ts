/**
 * Invitation tokens: what an `/invite/<token>` link carries. Like a share
 * link (domain/access/share-token.ts): a JWT (HS256) naming the invite, its
 * workspace and room, signed with a key derived from the session secret for
 * invitations only, so it can never pass for a session or a share link.
 *
 * The signature alone cannot be revoked or counted, so the overseer keeps
 * each invite's row (uses, limit, expiry) with the token's SHA-256: a token
 * is good only while that row exists and matches. Signing is deterministic,
 * so the members panel can show a link again without the server storing it.
 */

import { sign, verify } from "hono/jwt";
import { z } from "zod";
import { AppError } from "@/server/app-error";
import { storedAuthor } from "@/server/domain/access/stored-author";
import { WORKSPACE_PATTERN } from "@/shared/constants";
import { INVITE_ID_PATTERN, MAX_INVITE_TOKEN_LENGTH } from "@/shared/members";

export interface InviteClaims {
  inviteId: string;
  workspace: string;
  roomId: string;
  /** Epoch seconds. */
  issuedAt: number;
  /** Epoch seconds; null for an invitation that lasts until revoked. */
  expiresAt: number | null;
}

const INVITE_TYPE = "rooms-invite";

const Payload = z.object({
  typ: z.literal(INVITE_TYPE),
  iid: z.string().regex(INVITE_ID_PATTERN),
  ws: z.string().regex(WORKSPACE_PATTERN),
  room: z.string().min(1).max(128),
  iat: z.number().int(),
  exp: z.number().int().optional()
});

function inviteKey(secret: string): string {
  return `room-invite:${secret}`;
}

/** Forged, expired, revoked, used up by a deleted room: one answer. */
export const inviteGone = () =>
  new AppError("not_found:invite", 404, "This invitation is not valid any more: ask for a new one.");

/** Who made an invitation, from its stored row. */
export const inviterOf = storedAuthor;

export function newInviteId(): string {
  return `in_${crypto.randomUUID()}`;
}

/** The same claims always give the same token (fixed key order, deterministic HS256). */
export function issueInviteToken(claims: InviteClaims, secret: string): Promise<string> {
  const payload: Record<string, string | number> = {
    typ: INVITE_TYPE,
    iid: claims.inviteId,
    ws: claims.workspace,
    room: claims.roomId,
    iat: claims.issuedAt
  };
  if (claims.expiresAt !== null) payload.exp = claims.expiresAt;
  return sign(payload, inviteKey(secret), "HS256");
}

/** The claims of a well-formed, correctly signed, unexpired invitation; null for anything else. */
export async function readInviteToken(token: string | undefined, secret: string): Promise<InviteClaims | null> {
  if (!token || token.length > MAX_INVITE_TOKEN_LENGTH) return null;
  let raw: unknown;
  try {
    raw = await verify(token, inviteKey(secret), "HS256");
  } catch {
    return null; // forged, expired, malformed
  }
  const parsed = Payload.safeParse(raw);
  if (!parsed.success) return null;
  const { iid, ws, room, iat, exp } = parsed.data;
  return { inviteId: iid, workspace: ws, roomId: room, issuedAt: iat, expiresAt: exp ?? null };
}
