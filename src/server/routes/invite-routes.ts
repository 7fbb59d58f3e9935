/**
 * Opening an invitation (`/invite/<token>` in the browser, whose landing
 * page calls these; scripts call them directly):
 *
 *   GET  /api/invites/:token          the room's name and who invited (signed-in callers)
 *   POST /api/invites/:token/accept   `{}`: makes the caller a member → { workspace, roomId, roomName }
 *
 * The token names its workspace and room; anything forged, expired, revoked
 * or of a deleted room is one 404 (`not_found:invite`).
 */
import { type Context, Hono } from "hono";

import { unwrap } from "@/server/app-error";
import { hashShareToken } from "@/server/domain/access/share-token";
import { type InviteClaims, inviteGone, readInviteToken } from "@/server/domain/roles/invite-token";
import { type AppEnv, requireCaller, sessionSecret } from "@/server/http/access";
import { type OverseerRpc, overseerOf } from "./overseer-stub";

async function openInvite(
  c: Context<AppEnv>
): Promise<{ claims: InviteClaims; tokenHash: string; overseer: OverseerRpc }> {
  const token = c.req.param("token") ?? "";
  const claims = await readInviteToken(token, await sessionSecret(c.env));
  if (!claims) throw inviteGone();
  const overseer = await overseerOf(c.env, claims.workspace);
  return { claims, tokenHash: await hashShareToken(token), overseer };
}

export const inviteRoutes = new Hono<AppEnv>()
  .use(async (c, next) => {
    await next();
    // The token is a credential: keep it out of caches.
    c.header("cache-control", "no-store");
  })
  .get("/:token", async (c) => {
    const caller = requireCaller(c);
    const { claims, tokenHash, overseer } = await openInvite(c);
    return c.json(unwrap(await overseer.viewInvite(claims, tokenHash, caller)));
  })
  .post("/:token/accept", async (c) => {
    const caller = requireCaller(c);
    const { claims, tokenHash, overseer } = await openInvite(c);
    return c.json(unwrap(await overseer.acceptInvite(claims, tokenHash, caller)));
  });
