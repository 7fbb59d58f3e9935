/**
 * The Worker entry: wiring only.
 *
 *   /api/*      REST (Hono), see routes/rooms-routes.ts and routes/session-routes.ts;
 *               /api/share/<token>/* is a share link's read-only viewer (routes/shares-routes.ts)
 *   /mcp        the workspace as an MCP server, for a named API token (routes/mcp-endpoint-routes.ts)
 *   /agents/*   agents router: the overseer's room-list socket and, under
 *               /sub/chat-room/<id>, each room's socket
 *               (both behind http/access.ts: who is calling, Origin checks;
 *               agents get the caller from http/agent-forward.ts;
 *               a room's MCP OAuth callback, …/sub/chat-room/<id>/mcp-callback,
 *               goes without one: domain/tools/mcp-oauth.ts)
 *   else        the client build (single-page app, so deep links work)
 */
import { routeAgentRequest } from "agents";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { roomIdOfCallbackPath } from "@/server/domain/tools/mcp-oauth";
import { type AppEnv, identify, requireCaller } from "@/server/http/access";
import { forwardOAuthCallback, forwardToAgents, oauthCallbackRedirect } from "@/server/http/agent-forward";
import { handleError } from "@/server/http/error-response";
import { securityHeaders } from "@/server/http/security-headers";
import { catchUpRoutes } from "@/server/routes/catch-up-routes";
import { inviteRoutes } from "@/server/routes/invite-routes";
import { MCP_PATH, mcpEndpointRoutes } from "@/server/routes/mcp-endpoint-routes";
import { roomMemberRoutes } from "@/server/routes/members-routes";
import { notificationRoutes } from "@/server/routes/notifications-routes";
import { roomRoutes } from "@/server/routes/rooms-routes";
import { searchRoutes } from "@/server/routes/search-routes";
import { sessionRoutes } from "@/server/routes/session-routes";
import { roomShareRoutes, shareViewerRoutes } from "@/server/routes/shares-routes";
import { statusRoutes, workspaceSettingsRoutes } from "@/server/routes/status-routes";
import { workspaceToolRoutes } from "@/server/routes/tools-routes";
import { roomTransferRoutes, workspaceExportRoutes } from "@/server/routes/transfer-routes";
import { meRoutes, peopleRoutes, tokenRoutes } from "@/server/routes/workspace-admin-routes";
import { MAX_REQUEST_BODY_BYTES } from "@/shared/constants";
import { AppError } from "./app-error";

const defaultBodyLimit = bodyLimit({
  maxSize: MAX_REQUEST_BODY_BYTES,
  onError: () => {
    throw new AppError(
      "payload_too_large:body",
      413,
      `The request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`
    );
  }
});
const IMPORT_PATH = /^\/api\/(workspaces\/[^/]+\/)?rooms\/import$/;
const IMPORT_TYPES = /^application\/(json|zip|x-zip-compressed|octet-stream)\b/i;
/** File uploads stream multipart bodies with their own limits (routes/files-routes.ts). */
const UPLOAD_PATH = /^\/api\/(workspaces\/[^/]+\/)?rooms\/[^/]+\/files$/;
const isUpload = (method: string, path: string) => method === "POST" && UPLOAD_PATH.test(path);

const api = new Hono<AppEnv>()
  // Import files have their own, larger limit (routes/transfer-routes.ts).
  .use((c, next) =>
    IMPORT_PATH.test(c.req.path) || isUpload(c.req.method, c.req.path) ? next() : defaultBodyLimit(c, next)
  )
  .use(async (c, next) => {
    const method = c.req.method;
    // An import's bytes say what it is (JSON or a .zip); any type a plain form cannot send will do.
    const accepted = IMPORT_PATH.test(c.req.path) ? IMPORT_TYPES : /^application\/json\b/i;
    if (
      (method === "POST" || method === "PATCH" || method === "PUT") &&
      !isUpload(method, c.req.path) &&
      !accepted.test(c.req.header("content-type") ?? "")
    ) {
      throw new AppError("bad_request:json", 415, "Send the body as JSON with Content-Type: application/json.");
    }
    await next();
  })
  .route("/session", sessionRoutes)
  .route("/rooms", roomTransferRoutes)
  .route("/workspaces/:workspace/rooms", roomTransferRoutes)
  .route("/rooms", roomShareRoutes)
  .route("/workspaces/:workspace/rooms", roomShareRoutes)
  .route("/rooms", roomMemberRoutes)
  .route("/workspaces/:workspace/rooms", roomMemberRoutes)
  .route("/rooms", catchUpRoutes)
  .route("/workspaces/:workspace/rooms", catchUpRoutes)
  .route("/rooms", roomRoutes)
  .route("/workspaces/:workspace/rooms", roomRoutes)
  .route("/share", shareViewerRoutes)
  .route("/invites", inviteRoutes)
  .route("/me", meRoutes)
  .route("/workspaces/:workspace/me", meRoutes)
  .route("/people", peopleRoutes)
  .route("/workspaces/:workspace/people", peopleRoutes)
  .route("/tokens", tokenRoutes)
  .route("/workspaces/:workspace/tokens", tokenRoutes)
  .route("/mcp", workspaceToolRoutes)
  .route("/workspaces/:workspace/mcp", workspaceToolRoutes)
  .route("/status", statusRoutes)
  .route("/workspaces/:workspace/status", statusRoutes)
  .route("/workspaces/:workspace/settings", workspaceSettingsRoutes)
  .route("/export", workspaceExportRoutes)
  .route("/workspaces/:workspace/export", workspaceExportRoutes)
  .route("/notifications", notificationRoutes)
  .route("/workspaces/:workspace/notifications", notificationRoutes)
  .route("/search", searchRoutes)
  .route("/workspaces/:workspace/search", searchRoutes)
  .all("*", (c) => {
    throw new AppError("not_found:route", 404, `No API route ${c.req.method} ${new URL(c.req.url).pathname}.`);
  });

const app = new Hono<AppEnv>()
  .use(securityHeaders)
  .use("/api/*", identify)
  .use("/agents/*", identify)
  .route("/api", api)
  .route(MCP_PATH, mcpEndpointRoutes)
  .all("/agents/*", async (c) => {
    const callbackRoom = c.req.method === "GET" ? roomIdOfCallbackPath(new URL(c.req.url).pathname) : null;
    if (callbackRoom !== null) {
      const answered = await routeAgentRequest(forwardOAuthCallback(c.req.raw), c.env);
      if (answered) return oauthCallbackRedirect(answered, callbackRoom);
      throw new AppError("not_found:route", 404, "No agent at this address.");
    }
    const response = await routeAgentRequest(forwardToAgents(c.req.raw, requireCaller(c)), c.env);
    if (response) return response;
    throw new AppError("not_found:route", 404, "No agent at this address.");
  })
  .onError(handleError);

export default app;
export type AppType = typeof app;

export { AuthKeeper } from "@/server/agents/auth-keeper";
export { ChatRoom } from "@/server/agents/chat-room";
export { LimitKeeper } from "@/server/agents/limit-keeper";
// Durable Object classes must be exported from the main module under their
// own names: routing finds them through ctx.exports[Class.name].
export { OverseerAgent } from "@/server/agents/overseer-agent";
export { PersonaAgent } from "@/server/agents/persona-agent";
export { TaskAgent } from "@/server/agents/task-agent";
