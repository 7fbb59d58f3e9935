/**
 * Share links over REST.
 *
 * Members (any signed-in caller of the room's workspace):
 *   POST   /api/rooms/:id/shares { expiresIn? }   a new link, `/share/<token>`
 *   GET    /api/rooms/:id/shares                  the room's active links
 *   DELETE /api/rooms/:id/shares/:shareId         revoke: 404 from then on, viewers closed
 *   (each also under /api/workspaces/<workspace>/rooms/...)
 *
 * Anyone holding a link, with no session (http/access.ts lets /api/share/ through),
 * rate-limited per address (RATE_LIMITS.shareViews):
 *   GET /api/share/:token            the room's name and the link's expiry
 *   GET /api/share/:token/messages   pages of history (before, limit)
 *   GET /api/share/:token/socket     the live room, as a WebSocket
 *   GET /api/share/:token/files      the room's files, read-only (no upload or delete)
 *   GET /api/share/:token/files/:fileId   a file's bytes, as the member's route serves them
 *
 * The viewer's socket is a room socket like any other, so new messages and
 * streams reach it through AIChatAgent's own broadcast; what makes it a
 * viewer is the caller the Worker writes for it (`viewerOf`), which the room
 * turns into the framework's readonly connection, and which its frame guard
 * refuses every write for. A separate read-only stream would have meant
 * re-implementing the chat protocol's broadcasting and resumption.
 */
import { zValidator } from "@hono/zod-validator";
import { routeAgentRequest } from "agents";
import { type Context, Hono } from "hono";
import { AppError, unwrap } from "@/server/app-error";
import type { ShareRow } from "@/server/contracts/overseer-api";
import { GoneShares } from "@/server/domain/access/gone-shares";
import {
  hashShareToken,
  issueShareToken,
  newShareId,
  readShareToken,
  type ShareClaims,
  shareExpiry
} from "@/server/domain/access/share-token";
import { storedAuthor } from "@/server/domain/access/stored-author";
import { requireFileId, serveFile } from "@/server/files/serve-file";
import { type AppEnv, clientAddress, requireCaller, sessionSecret } from "@/server/http/access";
import { forwardToAgents } from "@/server/http/agent-forward";
import { rejectInvalid } from "@/server/http/validation";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import { FilesQuery } from "@/shared/files";
import { authorOf, type Identity } from "@/shared/identity";
import {
  CreateShareBody,
  SHARE_ID_PATTERN,
  type ShareLink,
  type ShareList,
  ShareMessagesQuery,
  type ShareView
} from "@/shared/shares";
import { type OverseerRpc, overseerFor, overseerOf } from "./overseer-stub";

const shareGone = () => new AppError("not_found:share", 404, "This share link is no longer valid.");

function claimsOf(row: ShareRow, workspace: string): ShareClaims {
  return {
    shareId: row.id,
    workspace,
    roomId: row.room_id,
    issuedAt: Math.floor(row.created_at / 1000),
    expiresAt: row.expires_at === null ? null : row.expires_at / 1000
  };
}

/** A row as members see it: with its link, signed again (signing is deterministic, so it is the same link). */
async function toShareLink(row: ShareRow, workspace: string, secret: string): Promise<ShareLink> {
  const token = await issueShareToken(claimsOf(row, workspace), secret);
  return {
    id: row.id,
    roomId: row.room_id,
    path: `/share/${token}`,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    createdBy: storedAuthor(row)
  };
}

const workspaceOf = (c: Context<AppEnv>) => c.req.param("workspace") ?? DEFAULT_WORKSPACE;

export const roomShareRoutes = new Hono<AppEnv>()
  .post("/:id/shares", zValidator("json", CreateShareBody, rejectInvalid("bad_request:body")), async (c) => {
    const caller = requireCaller(c);
    const overseer = await overseerFor(c);
    const secret = await sessionSecret(c.env);
    const roomId = c.req.param("id");
    const now = Date.now();
    // Whole seconds, as the token's own times are.
    const createdAt = Math.floor(now / 1000) * 1000;
    const expiresAtSeconds = shareExpiry(now, c.req.valid("json").expiresIn);
    const claims: ShareClaims = {
      shareId: newShareId(),
      workspace: workspaceOf(c),
      roomId,
      issuedAt: createdAt / 1000,
      expiresAt: expiresAtSeconds
    };
    const token = await issueShareToken(claims, secret);
    const row = unwrap(
      await overseer.createShare(
        roomId,
        {
          id: claims.shareId,
          tokenHash: await hashShareToken(token),
          createdAt,
          expiresAt: expiresAtSeconds === null ? null : expiresAtSeconds * 1000,
          createdBy: authorOf(caller.identity)
        },
        caller
      )
    );
    return c.json(await toShareLink(row, claims.workspace, secret), 201);
  })
  .get("/:id/shares", async (c) => {
    const caller = requireCaller(c);
    const overseer = await overseerFor(c);
    const secret = await sessionSecret(c.env);
    const rows = unwrap(await overseer.listShares(c.req.param("id"), caller));
    const list: ShareList = { shares: await Promise.all(rows.map((row) => toShareLink(row, workspaceOf(c), secret))) };
    return c.json(list);
  })
  .delete("/:id/shares/:shareId", async (c) => {
    const caller = requireCaller(c);
    const shareId = c.req.param("shareId");
    if (!SHARE_ID_PATTERN.test(shareId)) throw new AppError("not_found:share", 404, "That is not a share link's id.");
    const overseer = await overseerFor(c);
    unwrap(await overseer.revokeShare(c.req.param("id"), shareId, caller));
    goneShares.add(shareId);
    return c.body(null, 204);
  });

/** Links this isolate knows are gone: answered 404 without asking their overseer (domain/access/gone-shares.ts). */
const goneShares = new GoneShares();

/**
 * The link's claims and room, or 404 for anything forged, expired, revoked
 * or of a deleted room; 429 when the viewer's address has made too many
 * requests (RATE_LIMITS.shareViews, counted by the overseer).
 */
async function openShare(
  c: Context<AppEnv>
): Promise<{ claims: ShareClaims; view: ShareView; overseer: OverseerRpc; tokenHash: string }> {
  const token = c.req.param("token") ?? "";
  const claims = await readShareToken(token, await sessionSecret(c.env));
  if (!claims || goneShares.has(claims.shareId)) throw shareGone();
  const overseer = await overseerOf(c.env, claims.workspace);
  const tokenHash = await hashShareToken(token);
  const opened = await overseer.openShare(claims.shareId, claims.roomId, tokenHash, clientAddress(c.req.raw));
  if (!opened.ok && opened.error.code === "not_found:share") goneShares.add(claims.shareId);
  return { claims, view: unwrap(opened), overseer, tokenHash };
}

export const shareViewerRoutes = new Hono<AppEnv>()
  .use(async (c, next) => {
    await next();
    // The token is a credential: keep it out of caches.
    if (c.res.status !== 101) c.header("cache-control", "no-store");
  })
  .get("/:token", async (c) => c.json((await openShare(c)).view))
  .get("/:token/messages", zValidator("query", ShareMessagesQuery, rejectInvalid("bad_request:query")), async (c) => {
    const { claims, view, overseer, tokenHash } = await openShare(c);
    const share = { shareId: claims.shareId, roomId: view.roomId, tokenHash };
    return c.json(unwrap(await overseer.sharedMessages(share, c.req.valid("query"))));
  })
  .get("/:token/files", zValidator("query", FilesQuery, rejectInvalid("bad_request:query")), async (c) => {
    const { claims, view, overseer, tokenHash } = await openShare(c);
    const share = { shareId: claims.shareId, roomId: view.roomId, tokenHash };
    return c.json(unwrap(await overseer.sharedFiles(share, c.req.valid("query"))));
  })
  .get("/:token/files/:fileId", async (c) => {
    const fileId = c.req.param("fileId");
    requireFileId(fileId);
    const { claims, view, overseer, tokenHash } = await openShare(c);
    const share = { shareId: claims.shareId, roomId: view.roomId, tokenHash };
    const { file, key } = unwrap(await overseer.sharedFile(share, fileId));
    return serveFile(c.env.FILES, file, key);
  })
  .get("/:token/socket", async (c) => {
    if ((c.req.header("upgrade") ?? "").toLowerCase() !== "websocket") {
      throw new AppError("bad_request:body", 400, "This address takes a WebSocket upgrade.");
    }
    const { claims } = await openShare(c);
    const viewer: Identity = { id: `viewer:${claims.shareId}`, name: "Viewer", kind: "api" };
    // Only the room the link names: the client's own path and query are dropped.
    const target = new URL(c.req.url);
    target.pathname = `/agents/overseer-agent/${claims.workspace}/sub/chat-room/${encodeURIComponent(claims.roomId)}`;
    target.search = "";
    const request = new Request(target, c.req.raw);
    const response = await routeAgentRequest(
      forwardToAgents(request, { identity: viewer, address: clientAddress(c.req.raw), viewerOf: claims.shareId }),
      c.env
    );
    if (!response) throw shareGone();
    return response;
  });
