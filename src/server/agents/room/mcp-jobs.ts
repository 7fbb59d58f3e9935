/**
 * The room's MCP jobs, made together: its servers (room/room-mcp.ts), the
 * approvals of "ask first" calls (room/room-approvals.ts), and the one RPC
 * call the overseer hands over for both (`ToolsCall`). Kept apart from
 * room-jobs.ts so the tools feature is wired there in a line.
 */
import type { UIMessage } from "ai";
import type { ToolsCall, ToolsCallResults } from "@/server/contracts/room-api";
import { readMcpConfig } from "@/server/domain/tools/mcp-config";
import type { Env } from "@/server/env";
import type { MessageAuthor } from "@/shared/identity";
import { mcpToolsForTurn } from "./mcp-tools";
import { RoomApprovals } from "./room-approvals";
import type { RoomCore } from "./room-core";
import { RoomMcp } from "./room-mcp";

/** What only the class can reach: the framework's protected continuation and the agent's alarm. */
export interface ToolInternals {
  env: Env;
  ctx: DurableObjectState;
  continueAnswer: () => Promise<unknown>;
  scheduleExpiry: (at: Date) => Promise<unknown>;
}

export function toolJobs(room: RoomCore, { env, ctx, continueAnswer, scheduleExpiry }: ToolInternals) {
  const config = () => readMcpConfig(env);
  const mcp = new RoomMcp({
    sql: ctx.storage.sql,
    mcp: () => room.mcp,
    limits: () => ({ allowPrivate: config().allowPrivate, maxResponseBytes: config().maxResponseBytes }),
    waitUntil: (promise) => ctx.waitUntil(promise)
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
        tools: () => mcp.tools(),
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
        return mcp.add(c.body, who);
      case "removeServer":
        await mcp.remove(c.serverId);
        return null;
      case "reconnect":
        return mcp.reconnect(c.serverId);
      case "updateTool":
        return mcp.updateTool(c.serverId, c.tool, c.body);
      case "approvals":
        return { approvals: await approvals.pending() };
      case "decide":
        return approvals.decide(c.toolCallId, c.body.approved, who);
    }
  }
  return { mcp, approvals, forTurn, call };
}
