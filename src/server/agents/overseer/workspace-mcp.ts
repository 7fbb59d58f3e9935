/**
 * The workspace's MCP servers, the overseer's half: the registry (with the
 * headers and the policies an admin sets) is a McpServers of the workspace
 * (mcp/mcp-servers.ts) in the overseer's SQLite and MCP client, whose
 * own connection shows each server's state and tools. The rooms connect to
 * the servers themselves (agents/room/room-workspace-mcp.ts): this side
 * answers a room's question for the list, remembers which rooms asked, and
 * sends them the new list on every change (the design is argued in
 * domain/tools/workspace-mcp-sync.ts).
 */

import type { ToolsCallResults, WorkspaceToolsCall } from "@/server/contracts/room-api";
import type { WorkspaceMcpServer } from "@/server/domain/tools/workspace-mcp-sync";
import type { McpServers } from "@/server/mcp/mcp-servers";
import type { MessageAuthor } from "@/shared/identity";

export interface WorkspaceMcpHost {
  /** The registry, a McpServers of scope "workspace" over the overseer's storage. */
  servers: McpServers;
  /** Whether the room still exists (a deleted one is not told). */
  exists: (roomId: string) => boolean;
  /** Gives a room the new list `who` made; answers once the room dropped what left it. */
  tell: (roomId: string, servers: WorkspaceMcpServer[], who: MessageAuthor) => Promise<void>;
}

export class WorkspaceMcp {
  /** Rooms that asked for the list since the overseer woke (their copies die with this memory, as they share it). */
  #holders = new Set<string>();
  /** Reconnects an admin asked for, by server; a server not here is at generation 0. */
  #generations = new Map<string, number>();

  constructor(private readonly host: WorkspaceMcpHost) {}

  /** The list for a room, which from now on hears of every change. */
  forRoom(roomId: string): WorkspaceMcpServer[] {
    this.#holders.add(roomId);
    return this.#list();
  }

  forget(roomId: string) {
    this.#holders.delete(roomId);
  }

  #list(): WorkspaceMcpServer[] {
    const { servers } = this.host;
    return servers.connectionSpecs().map((spec) => ({
      ...spec,
      generation: this.#generations.get(spec.id) ?? 0,
      policies: Object.fromEntries(servers.policiesOf(spec.id))
    }));
  }

  /** One REST call (the overseer checked the caller is an admin); a change reaches every room holding the list. */
  async call(c: WorkspaceToolsCall, who: MessageAuthor): Promise<ToolsCallResults[WorkspaceToolsCall["op"]]> {
    const { servers } = this.host;
    switch (c.op) {
      case "servers":
        return { servers: await servers.list() };
      case "addServer": {
        const added = await servers.add(c.body, who);
        await this.#tellHolders(who);
        return added;
      }
      case "removeServer":
        await servers.remove(c.serverId);
        this.#generations.delete(c.serverId);
        await this.#tellHolders(who);
        return null;
      case "reconnect": {
        const view = await servers.reconnect(c.serverId);
        this.#generations.set(c.serverId, (this.#generations.get(c.serverId) ?? 0) + 1);
        await this.#tellHolders(who);
        return view;
      }
      case "updateTool": {
        const tool = servers.updateTool(c.serverId, c.tool, c.body);
        await this.#tellHolders(who);
        return tool;
      }
    }
  }

  /** Best effort, like a budget notice: a room that misses it asks again when its copy is old. */
  async #tellHolders(who: MessageAuthor) {
    const list = this.#list();
    const tell = async (roomId: string) => {
      if (!this.host.exists(roomId)) {
        this.#holders.delete(roomId);
        return;
      }
      try {
        await this.host.tell(roomId, list, who);
      } catch (error) {
        console.warn(`[WorkspaceMcp] room ${roomId} kept an old list of workspace servers:`, error);
      }
    };
    await Promise.all([...this.#holders].map(tell));
  }
}
