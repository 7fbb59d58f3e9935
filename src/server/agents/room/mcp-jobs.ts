/**
 * The room's MCP jobs, made together: its servers (mcp/mcp-servers.ts), the
 * workspace's servers as the room connects to them (room/room-workspace-mcp.ts), the
 * approvals of "ask first" calls (room/room-approvals.ts), and the one RPC
 * call the overseer hands over for both (`ToolsCall`). Kept apart from
 * room-jobs.ts so the tools feature is wired there in a line.
 */
import type { UIMessage } from "ai";
import type { ToolsCall, ToolsCallResults } from "@/server/contracts/room-api";
import { readMcpConfig } from "@/server/domain/tools/mcp-config";
import { MCP_CALLBACK_SEGMENT, type OAuthOutcome } from "@/server/domain/tools/mcp-oauth";
import type { Env } from "@/server/env";
import { McpServers } from "@/server/mcp/mcp-servers";
import type { MessageAuthor } from "@/shared/identity";
import { mcpToolsForTurn } from "./mcp-tools";
import type { OverseerLink } from "./overseer-link";
import { RoomApprovals } from "./room-approvals";
import type { RoomCore } from "./room-core";
import { RoomWorkspaceMcp } from "./room-workspace-mcp";

/** What only the class can reach: the framework's protected continuation and the agent's alarm. */
export interface ToolInternals {
  env: Env;
  ctx: DurableObjectState;
  continueAnswer: () => Promise<unknown>;
  scheduleExpiry: (at: Date) => Promise<unknown>;
}

export function toolJobs(
  room: RoomCore,
  { env, ctx, continueAnswer, scheduleExpiry }: ToolInternals,
  overseer: OverseerLink
) {
  const config = () => readMcpConfig(env);
  const mcp = new McpServers({
    sql: ctx.storage.sql,
    mcp: () => room.mcp,
    limits: () => ({ allowPrivate: config().allowPrivate, maxResponseBytes: config().maxResponseBytes }),
    waitUntil: (promise) => ctx.waitUntil(promise)
  });
  const workspace = new RoomWorkspaceMcp({
    sql: ctx.storage.sql,
    mcp: () => room.mcp,
    limits: () => ({ allowPrivate: config().allowPrivate, maxResponseBytes: config().maxResponseBytes }),
    waitUntil: (promise) => ctx.waitUntil(promise),
    fetchList: () => overseer.call((o) => o.workspaceMcpServers(room.name))
  });
  const approvals = new RoomApprovals({
    sql: ctx.storage.sql,
    messages: () => room.messages,
    persist: (messages: UIMessage[]) => room.persistMessages(messages),
    continueAnswer,
    scheduleExpiry,
    timeoutMs: () => config().approvalTimeoutMs,
    waitUntil: (promise) => ctx.waitUntil(promise)
  });
  /** The room's MCP tools for a turn (room/mcp-tools.ts). */
  const forTurn = (turn: { messages: readonly UIMessage[] }) =>
    mcpToolsForTurn(
      {
        tools: async () => [...(await mcp.tools()), ...(await workspace.tools())],
        mcp: () => room.mcp,
        limits: () => ({ timeoutMs: config().toolTimeoutMs, maxResultBytes: config().maxResultBytes }),
        requestApproval: (request) => approvals.request(request)
      },
      turn
    );
  async function call(c: ToolsCall, who: MessageAuthor): Promise<ToolsCallResults[ToolsCall["op"]]> {
    switch (c.op) {
      case "servers":
        return { servers: await mcp.list() };
      case "addServer":
        return mcp.add(c.body, who, c.callbackUrl);
      case "removeServer":
        await mcp.remove(c.serverId);
        return null;
      case "reconnect":
        return mcp.reconnect(c.serverId, c.callbackUrl);
      case "updateTool":
        return mcp.updateTool(c.serverId, c.tool, c.body);
      case "approvals":
        return { approvals: await approvals.pending() };
      case "decide":
        return approvals.decide(c.toolCallId, c.body.approved, who);
      case "workspaceServers":
        await workspace.learn(c.servers);
        return null;
    }
  }
  /**
   * An MCP server's OAuth callback (domain/tools/mcp-oauth.ts) reaches the
   * room at `/mcp-callback`; it is handed on at its public URL to the
   * lifecycle's request chain, where the SDK's MCP client claims it (before
   * the room's `onRequest`, which refuses everything else) when its state
   * is one the client issued. Not through the Agent's own `fetch`: it would
   * take the public URL's `/sub/chat-room/<id>` for a sub-agent of the room.
   *
   * The outcome is answered as JSON, not as the SDK's default redirect: the
   * framework forwards from the overseer to the room with redirects
   * followed, so a redirect to the room's page would come back to the room
   * as a request. The Worker turns the outcome into the browser's redirect
   * (http/agent-forward.ts `oauthCallbackRedirect`). Undefined: not a
   * callback, the room's usual handling goes on.
   */
  async function oauthCallback(
    request: Request,
    lifecycle: { start(): Promise<void>; fetch(request: Request): Promise<Response> }
  ): Promise<Response | undefined> {
    if (request.method !== "GET" || new URL(request.url).pathname !== `/${MCP_CALLBACK_SEGMENT}`) return undefined;
    // Started first, so the SDK has restored the room's connections after a wake; then the code
    // exchange and the connection after it go through the guarded fetch like every other request.
    await lifecycle.start();
    mcp.guardRestored();
    room.mcp.configureOAuthCallback({
      customHandler: (result): Response =>
        Response.json({
          signedIn: result.authSuccess,
          error: result.authSuccess ? null : (result.authError ?? null)
        } satisfies OAuthOutcome)
    });
    return lifecycle.fetch(mcp.outerCallbackRequest(request));
  }
  return { mcp, approvals, forTurn, call, oauthCallback };
}
