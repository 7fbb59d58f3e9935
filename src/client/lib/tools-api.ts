/**
 * REST calls of MCP servers (a room's, or the whole workspace's) and of a
 * room's tool approvals (docs/tools.md).
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

/**
 * One set of MCP server routes: a room's or the workspace's are the same
 * calls under another base, so the Tools dialog and the workspace's page
 * share their components (components/tools/).
 */
export interface McpServersApi {
  servers(signal?: AbortSignal): Promise<McpServerList>;
  addServer(body: AddMcpServerBody): Promise<McpServerView>;
  removeServer(serverId: string): Promise<void>;
  reconnect(serverId: string): Promise<McpServerView>;
  setPolicy(serverId: string, tool: string, policy: ToolPolicy): Promise<McpToolView>;
}

function mcpServersApi(base: string): McpServersApi {
  return {
    servers: (signal) => request<McpServerList>(base, { signal }),
    addServer: (body) => request<McpServerView>(base, { method: "POST", json: body }),
    removeServer: (serverId) => request<void>(`${base}/${part(serverId)}`, { method: "DELETE" }),
    reconnect: (serverId) =>
      request<McpServerView>(`${base}/${part(serverId)}/reconnect`, { method: "POST", json: {} }),
    setPolicy: (serverId, tool, policy) =>
      request<McpToolView>(`${base}/${part(serverId)}/tools/${part(tool)}`, { method: "PATCH", json: { policy } })
  };
}

/** A room's own MCP servers (its owner's and admins'). */
export const roomMcpApi = (roomId: string) => mcpServersApi(mcp(roomId));
/** The servers every room of the workspace offers (admins'). */
export const workspaceMcpApi = mcpServersApi("/api/mcp");

export const toolsApi = {
  approvals: (roomId: string, signal?: AbortSignal) =>
    request<ToolApprovalList>(`/api/rooms/${part(roomId)}/approvals`, { signal }),
  decide: (roomId: string, toolCallId: string, approved: boolean) =>
    request<ToolApproval>(`/api/rooms/${part(roomId)}/approvals/${part(toolCallId)}`, {
      method: "POST",
      json: { approved }
    })
};
