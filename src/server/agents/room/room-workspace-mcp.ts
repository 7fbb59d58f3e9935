/**
 * The workspace's MCP servers in one room: the room's copy of the list the
 * overseer keeps (agents/overseer/workspace-mcp.ts), and its own
 * connections to them, in the room's MCP client beside its own servers
 * (mcp/mcp-servers.ts). When and why the copy is asked for, and why it is
 * never stored, is in domain/tools/workspace-mcp-sync.ts.
 */
import { copyIsFresh, planSync, type WorkspaceMcpServer } from "@/server/domain/tools/workspace-mcp-sync";
import {
  callNameOf,
  connectGuarded,
  type McpServersDeps,
  type RoomMcpTool,
  readyToolViews
} from "@/server/mcp/mcp-servers";

/** How long a turn waits for new connections before it goes on without their tools (as for a room's own servers). */
const TURN_CONNECT_WAIT_MS = 3_000;

export interface RoomWorkspaceMcpDeps extends Pick<McpServersDeps, "mcp" | "limits" | "waitUntil"> {
  /** The SQLite the room's MCP client writes to (a workspace server is taken out of it again). */
  sql: SqlStorage;
  /** Asks the overseer for the list; undefined when the room has no overseer (tests run rooms alone). */
  fetchList: () => Promise<WorkspaceMcpServer[] | undefined>;
}

export class RoomWorkspaceMcp {
  #copy: { servers: WorkspaceMcpServer[]; learnedAt: number } | null = null;
  /** The room's connections to workspace servers: id → the generation it connected at. */
  #connected = new Map<string, number>();

  constructor(private readonly deps: RoomWorkspaceMcpDeps) {}

  /**
   * The overseer's new list (or the answer to the room's question). Servers
   * gone from it are dropped at once, so their tools leave the room before
   * the overseer's change answers; new ones connect in the background.
   */
  async learn(servers: WorkspaceMcpServer[]): Promise<void> {
    this.#copy = { servers, learnedAt: Date.now() };
    const { drop, connect } = planSync(this.#connected, servers);
    await this.#drop(drop);
    if (connect.length > 0) this.deps.waitUntil(this.#sync());
  }

  async #drop(ids: string[]) {
    const mcp = this.deps.mcp();
    for (const id of ids) {
      this.#connected.delete(id);
      await mcp.removeServer(id).catch((error) => console.warn(`[RoomWorkspaceMcp] dropping ${id}: ${String(error)}`));
    }
  }

  /**
   * Connects what the copy has and the room lacks, all at once, waiting
   * TURN_CONNECT_WAIT_MS at most: a server that does not answer costs a
   * turn that moment once, then shows as failed until an admin reconnects it.
   */
  async #sync() {
    const servers = this.#copy?.servers ?? [];
    const { connect, drop } = planSync(this.#connected, servers);
    await this.#drop(drop);
    await Promise.all(
      connect.map((server) => {
        this.#connected.set(server.id, server.generation);
        return connectGuarded(this.deps, server, { unpersist: this.deps.sql, waitMs: TURN_CONNECT_WAIT_MS });
      })
    );
  }

  /** The workspace's tools for a turn, with the policies an admin set; asks the overseer only without a fresh copy. */
  async tools(): Promise<RoomMcpTool[]> {
    if (!copyIsFresh(this.#copy?.learnedAt ?? null)) {
      try {
        const servers = await this.deps.fetchList();
        if (servers !== undefined) this.#copy = { servers, learnedAt: Date.now() };
      } catch (error) {
        // The room's own servers still serve the turn; an old copy, if any, serves this one.
        console.warn(`[RoomWorkspaceMcp] no workspace list this turn: ${String(error)}`);
      }
    }
    const servers = this.#copy?.servers ?? [];
    if (servers.length === 0 && this.#connected.size === 0) return [];
    await this.#sync();
    const mcp = this.deps.mcp();
    return servers.flatMap((server) =>
      readyToolViews(mcp, server.id, new Map(Object.entries(server.policies))).map((t) => ({
        serverId: server.id,
        serverName: server.name,
        tool: t.name,
        callName: callNameOf(server.id, t.name),
        description: t.description,
        readOnly: t.readOnly,
        policy: t.policy,
        personas: t.personas
      }))
    );
  }
}
