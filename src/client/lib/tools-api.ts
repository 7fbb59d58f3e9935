/**
 * REST calls of a room's MCP servers and tool approvals (docs/tools.md).
 * Apart from api.ts so the rooms client stays about rooms; failures are the
 * same `ApiError`, whose message is the server's own sentence. A server's
 * headers go out with `addServer` and never come back.
 */
import type {
  AddMcpServerBody,
  McpServerList,
  McpServerView,
  McpToolView,
  ToolApproval,
  ToolApprovalList,
  ToolPolicy
} from "@/shared/tools";
import { request } from "./api";

const mcp = (roomId: string) => `/api/rooms/${encodeURIComponent(roomId)}/mcp`;
const part = encodeURIComponent;

export const toolsApi = {
  servers: (roomId: string, signal?: AbortSignal) => request<McpServerList>(mcp(roomId), { signal }),
  addServer: (roomId: string, body: AddMcpServerBody) =>
    request<McpServerView>(mcp(roomId), { method: "POST", json: body }),
  removeServer: (roomId: string, serverId: string) =>
    request<void>(`${mcp(roomId)}/${part(serverId)}`, { method: "DELETE" }),
  reconnect: (roomId: string, serverId: string) =>
    request<McpServerView>(`${mcp(roomId)}/${part(serverId)}/reconnect`, { method: "POST", json: {} }),
  setPolicy: (roomId: string, serverId: string, tool: string, policy: ToolPolicy) =>
    request<McpToolView>(`${mcp(roomId)}/${part(serverId)}/tools/${part(tool)}`, {
      method: "PATCH",
      json: { policy }
    }),
  approvals: (roomId: string, signal?: AbortSignal) =>
    request<ToolApprovalList>(`/api/rooms/${part(roomId)}/approvals`, { signal }),
  decide: (roomId: string, toolCallId: string, approved: boolean) =>
    request<ToolApproval>(`/api/rooms/${part(roomId)}/approvals/${part(toolCallId)}`, {
      method: "POST",
      json: { approved }
    })
};
