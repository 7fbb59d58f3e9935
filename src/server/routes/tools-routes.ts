/**
 * REST for a room's MCP servers and the approvals of its tool calls, mounted
 * under /rooms/:id: `/mcp` (the servers and their tools' policies) and
 * `/approvals` (calls waiting for a person). Validates with the shared
 * schemas (src/shared/tools.ts) and hands one call to the overseer, which
 * checks who may (`room.tools`, `room.approve`) and passes it on with the
 * caller (mcp/mcp-servers.ts and room/room-approvals.ts do the work).
 *
 * `workspaceToolRoutes` are the same `/mcp` routes for the whole workspace
 * (mounted at /workspaces/:workspace/mcp): admins only
 * (`workspace.tools`), and every room offers the servers' tools
 * (overseer/workspace-mcp.ts).
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { AppError, unwrap } from "@/server/app-error";
import type { RoomToolsCall, ToolsCallResults, WorkspaceToolsCall } from "@/server/contracts/room-api";
import { mcpCallbackUrl } from "@/server/domain/tools/mcp-oauth";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import { AddMcpServerBody, ApprovalDecisionBody, UpdateMcpToolBody } from "@/shared/tools";
import { overseerFor } from "./overseer-stub";

function checkedId(value: string | undefined, what: string): string {
  if (!value || value.length > 128) throw new AppError("bad_request:query", 400, `A ${what} has 1-128 characters.`);
  return value;
}

async function call<K extends RoomToolsCall["op"]>(
  c: Context<AppEnv>,
  toolsCall: Extract<RoomToolsCall, { op: K }>
): Promise<ToolsCallResults[K]> {
  const overseer = await overseerFor(c);
  const roomId = c.req.param("id") ?? "";
  // The contract answers the union of every call's result; this call's is the one for its op.
  return unwrap(await overseer.roomTools(roomId, toolsCall, requireCaller(c))) as ToolsCallResults[K];
}

/**
 * The room's OAuth callback on the origin this request came to: the
 * provider sends the browser back there (domain/tools/mcp-oauth.ts).
 */
function callbackUrlOf(c: Context<AppEnv>): string {
  return mcpCallbackUrl(
    new URL(c.req.url).origin,
    c.req.param("workspace") ?? DEFAULT_WORKSPACE,
    c.req.param("id") ?? ""
  );
}

export const toolRoutes = new Hono<AppEnv>()
  .get("/mcp", async (c) => c.json(await call(c, { op: "servers" })))
  .post("/mcp", zValidator("json", AddMcpServerBody, rejectInvalid("bad_request:body")), async (c) => {
    const server = await call(c, { op: "addServer", body: c.req.valid("json"), callbackUrl: callbackUrlOf(c) });
    return c.json(server, 201, { Location: `/api/rooms/${c.req.param("id")}/mcp/${server.id}` });
  })
  .delete("/mcp/:serverId", async (c) => {
    await call(c, { op: "removeServer", serverId: checkedId(c.req.param("serverId"), "server id") });
    return c.body(null, 204);
  })
  .post("/mcp/:serverId/reconnect", async (c) =>
    c.json(
      await call(c, {
        op: "reconnect",
        serverId: checkedId(c.req.param("serverId"), "server id"),
        callbackUrl: callbackUrlOf(c)
      })
    )
  )
  .patch(
    "/mcp/:serverId/tools/:tool",
    zValidator("json", UpdateMcpToolBody, rejectInvalid("bad_request:body")),
    async (c) =>
      c.json(
        await call(c, {
          op: "updateTool",
          serverId: checkedId(c.req.param("serverId"), "server id"),
          tool: checkedId(c.req.param("tool"), "tool name"),
          body: c.req.valid("json")
        })
      )
  )
  .get("/approvals", async (c) => c.json(await call(c, { op: "approvals" })))
  .post(
    "/approvals/:toolCallId",
    zValidator("json", ApprovalDecisionBody, rejectInvalid("bad_request:body")),
    async (c) =>
      c.json(
        await call(c, {
          op: "decide",
          toolCallId: checkedId(c.req.param("toolCallId"), "tool call id"),
          body: c.req.valid("json")
        })
      )
  );

async function workspaceCall<K extends WorkspaceToolsCall["op"]>(
  c: Context<AppEnv>,
  toolsCall: Extract<WorkspaceToolsCall, { op: K }>
): Promise<ToolsCallResults[K]> {
  const overseer = await overseerFor(c);
  return unwrap(await overseer.workspaceTools(toolsCall, requireCaller(c))) as ToolsCallResults[K];
}

export const workspaceToolRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json(await workspaceCall(c, { op: "servers" })))
  .post("/", zValidator("json", AddMcpServerBody, rejectInvalid("bad_request:body")), async (c) => {
    const server = await workspaceCall(c, { op: "addServer", body: c.req.valid("json") });
    const workspace = c.req.param("workspace") ?? DEFAULT_WORKSPACE;
    return c.json(server, 201, { Location: `/api/workspaces/${workspace}/mcp/${server.id}` });
  })
  .delete("/:serverId", async (c) => {
    await workspaceCall(c, { op: "removeServer", serverId: checkedId(c.req.param("serverId"), "server id") });
    return c.body(null, 204);
  })
  .post("/:serverId/reconnect", async (c) =>
    c.json(await workspaceCall(c, { op: "reconnect", serverId: checkedId(c.req.param("serverId"), "server id") }))
  )
  .patch(
    "/:serverId/tools/:tool",
    zValidator("json", UpdateMcpToolBody, rejectInvalid("bad_request:body")),
    async (c) =>
      c.json(
        await workspaceCall(c, {
          op: "updateTool",
          serverId: checkedId(c.req.param("serverId"), "server id"),
          tool: checkedId(c.req.param("tool"), "tool name"),
          body: c.req.valid("json")
        })
      )
  );
