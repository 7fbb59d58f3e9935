/**
 * A room's members and invitations over REST (the overseer decides who may;
 * overseer/workspace-access.ts):
 *
 *   GET    /api/rooms/:id/members                 members, and what the caller may do here
 *   POST   /api/rooms/:id/members { userId }      add someone who has used the workspace (owner, admins)
 *   GET    /api/rooms/:id/members/candidates?q=   who could be added, by name (owner, admins)
 *   DELETE /api/rooms/:id/members/:userId         remove someone (owner, admins), or leave (yourself)
 *   POST   /api/rooms/:id/owner { userId }        hand the room over to a member (owner, admins)
 *   POST   /api/rooms/:id/invites { expiresIn?, maxUses? }   → { token, url, … } (owner, admins)
 *   GET    /api/rooms/:id/invites                 active invitations, each with its link again
 *   DELETE /api/rooms/:id/invites/:inviteId       revoke: refused from then on
 *   (each also under /api/workspaces/<workspace>/rooms/...)
 *
 * Invitation tokens are signed here, like share links (domain/roles/invite-token.ts);
 * the overseer keeps each one's hash, uses and expiry.
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";

import { AppError, unwrap } from "@/server/app-error";
import type { InviteRow } from "@/server/contracts/overseer-api";
import { hashShareToken } from "@/server/domain/access/share-token";
import { type InviteClaims, inviterOf, issueInviteToken, newInviteId } from "@/server/domain/roles/invite-token";
import { type AppEnv, requireCaller, sessionSecret } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import {
  type CreatedInvite,
  CreateInviteBody,
  DEFAULT_INVITE_LIFETIME_SECONDS,
  INVITE_ID_PATTERN,
  type InviteLink,
  type InviteList,
  MemberCandidatesQuery,
  UserIdBody
} from "@/shared/members";
import { overseerFor } from "./overseer-stub";

const workspaceOf = (c: Context<AppEnv>) => c.req.param("workspace") ?? DEFAULT_WORKSPACE;

function claimsOf(row: InviteRow, workspace: string): InviteClaims {
  return {
    inviteId: row.id,
    workspace,
    roomId: row.room_id,
    issuedAt: Math.floor(row.created_at / 1000),
    expiresAt: row.expires_at / 1000
  };
}

/** A row as the owner sees it: with its link, signed again (signing is deterministic: the same link). */
async function toInviteLink(
  row: InviteRow,
  workspace: string,
  secret: string
): Promise<InviteLink & { token: string }> {
  const token = await issueInviteToken(claimsOf(row, workspace), secret);
  return {
    id: row.id,
    roomId: row.room_id,
    path: `/invite/${token}`,
    token,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    maxUses: row.max_uses,
    uses: row.uses,
    createdBy: inviterOf(row)
  };
}

export const roomMemberRoutes = new Hono<AppEnv>()
  .get("/:id/members", async (c) => {
    const overseer = await overseerFor(c);
    return c.json(unwrap(await overseer.listMembers(c.req.param("id"), requireCaller(c))));
  })
  .post("/:id/members", zValidator("json", UserIdBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    const { userId } = c.req.valid("json");
    return c.json(unwrap(await overseer.addMember(c.req.param("id"), userId, requireCaller(c))));
  })
  .get(
    "/:id/members/candidates",
    zValidator("query", MemberCandidatesQuery, rejectInvalid("bad_request:query")),
    async (c) => {
      const overseer = await overseerFor(c);
      const { q } = c.req.valid("query");
      return c.json(unwrap(await overseer.memberCandidates(c.req.param("id"), q, requireCaller(c))));
    }
  )
  .delete("/:id/members/:userId", async (c) => {
    const overseer = await overseerFor(c);
    unwrap(await overseer.removeMember(c.req.param("id"), c.req.param("userId"), requireCaller(c)));
    return c.body(null, 204);
  })
  .post("/:id/owner", zValidator("json", UserIdBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    const { userId } = c.req.valid("json");
    return c.json(unwrap(await overseer.transferOwnership(c.req.param("id"), userId, requireCaller(c))));
  })
  .post("/:id/invites", zValidator("json", CreateInviteBody, rejectInvalid("bad_request:body")), async (c) => {
    const caller = requireCaller(c);
    const overseer = await overseerFor(c);
    const secret = await sessionSecret(c.env);
    const body = c.req.valid("json");
    // Whole seconds, as the token's own times are.
    const issuedAt = Math.floor(Date.now() / 1000);
    const claims: InviteClaims = {
      inviteId: newInviteId(),
      workspace: workspaceOf(c),
      roomId: c.req.param("id"),
      issuedAt,
      expiresAt: issuedAt + (body.expiresIn ?? DEFAULT_INVITE_LIFETIME_SECONDS)
    };
    const token = await issueInviteToken(claims, secret);
    const row = unwrap(
      await overseer.createInvite(
        claims.roomId,
        {
          id: claims.inviteId,
          tokenHash: await hashShareToken(token),
          createdAt: issuedAt * 1000,
          expiresAt: (claims.expiresAt ?? issuedAt) * 1000,
          maxUses: body.maxUses ?? null
        },
        caller
      )
    );
    const link = await toInviteLink(row, claims.workspace, secret);
    const created: CreatedInvite = { ...link, url: new URL(link.path, c.req.url).toString() };
    return c.json(created, 201);
  })
  .get("/:id/invites", async (c) => {
    const overseer = await overseerFor(c);
    const secret = await sessionSecret(c.env);
    const rows = unwrap(await overseer.listInvites(c.req.param("id"), requireCaller(c)));
    const list: InviteList = {
      invites: await Promise.all(
        rows.map(async (row) => {
          const { token: _, ...link } = await toInviteLink(row, workspaceOf(c), secret);
          return link;
        })
      )
    };
    return c.json(list);
  })
  .delete("/:id/invites/:inviteId", async (c) => {
    const inviteId = c.req.param("inviteId");
    if (!INVITE_ID_PATTERN.test(inviteId)) {
      throw new AppError("not_found:invite", 404, "That is not an invitation's id.");
    }
    const overseer = await overseerFor(c);
    unwrap(await overseer.revokeInvite(c.req.param("id"), inviteId, requireCaller(c)));
    return c.body(null, 204);
  });
