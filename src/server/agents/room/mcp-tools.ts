/**
 * A turn's MCP tools: the room's servers' tools as the AI SDK takes them,
 * converted by the SDK (`MCPClientManager.getAITools`: JSON Schema to zod,
 * and the call), with what a shared room needs around each call:
 *
 * - a tool switched off is not offered; an "ask first" one gets
 *   `needsApproval`, which records the request (room/room-approvals.ts);
 * - every call has a deadline and its result a size limit, each ending
 *   with an error that says which, so a server that hangs or answers
 *   10 MB gives the model a failed call, never a stuck or broken answer;
 * - building the set never throws: a failing server offers no tools.
 */

import type { MCPClientManager } from "agents/mcp/client";
import type { Tool, ToolSet, UIMessage } from "ai";
import type { RoomMcpTool } from "@/server/mcp/mcp-servers";
import type { MessageAuthor } from "@/shared/identity";
import type { MessageMetadata } from "@/shared/protocol";
import type { ApprovalRequest } from "./room-approvals";

interface McpToolLimits {
  timeoutMs: number;
  maxResultBytes: number;
}

export interface McpTurnDeps {
  tools: () => Promise<RoomMcpTool[]>;
  mcp: () => MCPClientManager;
  limits: () => McpToolLimits;
  requestApproval: (request: ApprovalRequest) => void;
}

/** Who asked the question this turn answers: the author of the last user message. */
function askerOf(messages: readonly UIMessage[]): MessageAuthor | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "user") return ((message.metadata ?? {}) as MessageMetadata).author ?? null;
  }
  return null;
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms; the call was stopped.`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The text of an MCP error result (the SDK's own wording when there is none). */
function errorText(result: { content?: unknown }): string {
  const first = Array.isArray(result.content) ? (result.content[0] as { type?: string; text?: string }) : undefined;
  return first?.type === "text" && first.text ? first.text.slice(0, 2_000) : "Tool call failed";
}

/** The room's MCP tools for a turn (the assistant's; `forPersonas` keeps only the ones given to personas). */
export async function mcpToolsForTurn(
  deps: McpTurnDeps,
  turn: { messages: readonly UIMessage[] },
  forPersonas = false
): Promise<ToolSet> {
  try {
    const offered = (await deps.tools()).filter((t) => t.policy !== "off" && (!forPersonas || t.personas));
    if (offered.length === 0) return {};
    const mcp = deps.mcp();
    const converted = mcp.getAITools({ serverId: [...new Set(offered.map((t) => t.serverId))] });
    const { timeoutMs, maxResultBytes } = deps.limits();
    const asker = askerOf(turn.messages);
    const set: ToolSet = {};
    for (const t of offered) {
      const sdkTool = converted[t.callName];
      if (!sdkTool) continue;
      const what = `${t.serverName}'s ${t.tool}`;
      const tool: Tool = {
        description: t.description || sdkTool.description,
        inputSchema: sdkTool.inputSchema,
        execute: async (args: Record<string, unknown>, options: { abortSignal?: AbortSignal }) => {
          const result = (await withDeadline(
            mcp.callTool(
              { serverId: t.serverId, name: t.tool, arguments: args },
              {
                timeout: timeoutMs,
                ...(options?.abortSignal ? { signal: options.abortSignal } : {})
              }
            ),
            timeoutMs,
            what
          )) as { isError?: boolean; content?: unknown };
          if (result.isError) throw new Error(errorText(result));
          const bytes = new TextEncoder().encode(JSON.stringify(result)).byteLength;
          if (bytes > maxResultBytes) {
            throw new Error(
              `${what} answered ${bytes} bytes, more than the ${maxResultBytes} a result may have; it was cut off.`
            );
          }
          return result;
        },
        ...(t.policy === "ask" && !forPersonas
          ? {
              needsApproval: (input: unknown, { toolCallId }: { toolCallId: string }) => {
                deps.requestApproval({ toolCallId, tool: t.tool, server: t.serverName, input, askedBy: asker });
                return true;
              }
            }
          : {})
      } as Tool;
      set[t.callName] = tool;
    }
    return set;
  } catch (error) {
    console.warn(`[mcp-tools] no MCP tools this turn: ${String(error)}`);
    return {};
  }
}
