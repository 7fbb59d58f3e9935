/**
 * A room's MCP servers: who added which server, each tool's policy, and the
 * connections themselves. The connections are the agents SDK's
 * (`MCPClientManager`, the room's `this.mcp`): it connects over Streamable
 * HTTP, discovers tools, keeps each server's options (its headers included)
 * in this facet's SQLite and reconnects after a wake. What it lacks, and
 * this adds:
 *
 * - a record of who added a server and when, and per-tool policies
 *   (off / allowed / ask first), in tables of our own;
 * - the room's address rules and response limits on every request
 *   (room/mcp-fetch.ts). The SDK does not persist a `fetch`, so a
 *   connection it restored on wake is replaced by a guarded one before
 *   the room uses it (`#guarded`);
 * - a view that never carries a header's value or the URL's query.
 *
 * The turn's tools (with policies, time and size limits, approvals) are
 * built from this by room/mcp-tools.ts.
 */
import type { MCPClientManager } from "agents/mcp/client";
import { AppError } from "@/server/app-error";
import { checkMcpUrl, displayUrl } from "@/server/domain/tools/mcp-url";
import type { MessageAuthor } from "@/shared/identity";
import {
  type AddMcpServerBody,
  MAX_MCP_SERVERS_PER_ROOM,
  type McpServerState,
  type McpServerView,
  type McpToolView,
  type ToolPolicy,
  type UpdateMcpToolBody
} from "@/shared/tools";
import { guardedMcpFetch, type McpFetchLimits } from "./mcp-fetch";

type Sql = SqlStorage;

/**
 * How long adding or reconnecting a server waits for it before answering
 * with its state so far (`connecting`); the connection goes on meanwhile.
 */
const CONNECT_WAIT_MS = 5_000;
/** How long discovery (listing the tools) may take. */
const DISCOVER_TIMEOUT_MS = 15_000;

interface ServerRow {
  id: string;
  name: string;
  url: string;
  header_names: string;
  added_by: string;
  added_at: number;
  [key: string]: SqlStorageValue;
}

/** An MCP tool as the room offers it (room/mcp-tools.ts). */
export interface RoomMcpTool {
  serverId: string;
  serverName: string;
  /** The tool's name on its server. */
  tool: string;
  /** The name the model calls it by (the SDK's `getAITools` key). */
  callName: string;
  description: string;
  readOnly: boolean;
  policy: ToolPolicy;
  personas: boolean;
}

/** The SDK's AI tool key for a server's tool (agents/mcp/client getAITools). */
const callNameOf = (serverId: string, tool: string) => `tool_${serverId.replace(/-/g, "")}_${tool}`;
/** Tool parts are stored as `tool-<callName>` (domain/messages/persisted-message.ts keeps at most 64 characters). */
const CALLABLE = /^[A-Za-z0-9_-]{1,59}$/;

export interface RoomMcpDeps {
  sql: Sql;
  mcp: () => MCPClientManager;
  limits: () => McpFetchLimits;
  waitUntil: (promise: Promise<unknown>) => void;
}

export class RoomMcp {
  #tablesReady = false;
  /** Connections made by this room with its guarded fetch (ids), as opposed to ones the SDK restored. */
  #guardedIds = new Set<string>();

  constructor(private readonly deps: RoomMcpDeps) {}

  #tables(): Sql {
    const { sql } = this.deps;
    if (!this.#tablesReady) {
      sql.exec(`CREATE TABLE IF NOT EXISTS mcp_servers (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, url TEXT NOT NULL, header_names TEXT NOT NULL,
        added_by TEXT NOT NULL, added_at INTEGER NOT NULL)`);
      sql.exec(`CREATE TABLE IF NOT EXISTS mcp_tool_policies (
        server_id TEXT NOT NULL, tool TEXT NOT NULL, policy TEXT NOT NULL, personas INTEGER NOT NULL,
        PRIMARY KEY (server_id, tool))`);
      this.#tablesReady = true;
    }
    return sql;
  }

  #rows(): ServerRow[] {
    return this.#tables().exec<ServerRow>("SELECT * FROM mcp_servers ORDER BY added_at, id").toArray();
  }

  #row(id: string): ServerRow {
    const row = this.#tables().exec<ServerRow>("SELECT * FROM mcp_servers WHERE id = ?", id).toArray()[0];
    if (!row) throw new AppError("not_found:mcp_server", 404, "This room has no MCP server with that id.");
    return row;
  }

  hasServers(): boolean {
    return this.#rows().length > 0;
  }

  async add(body: AddMcpServerBody, by: MessageAuthor): Promise<McpServerView> {
    const limits = this.deps.limits();
    const url = checkMcpUrl(body.url, limits).toString();
    if (this.#rows().length >= MAX_MCP_SERVERS_PER_ROOM) {
      throw new AppError("conflict:mcp_limit", 409, `A room has at most ${MAX_MCP_SERVERS_PER_ROOM} MCP servers.`);
    }
    const id = `s${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;
    const headers = body.headers ?? {};
    this.#tables().exec(
      "INSERT INTO mcp_servers (id, name, url, header_names, added_by, added_at) VALUES (?, ?, ?, ?, ?, ?)",
      id,
      body.name,
      url,
      JSON.stringify(Object.keys(headers)),
      JSON.stringify(by),
      Date.now()
    );
    await this.#connect(id, body.name, url, headers);
    return this.#view(this.#row(id));
  }

  /** Connects (again) with the guarded fetch; a failure is the server's state, never a thrown error. */
  async #connect(id: string, name: string, url: string, headers: Record<string, string>): Promise<void> {
    const mcp = this.deps.mcp();
    const attempt = async () => {
      if (mcp.mcpConnections[id]) await mcp.closeConnection(id).catch(() => {});
      await mcp.registerServer(id, {
        url,
        name,
        // The SDK keeps `requestInit` (the headers) with the server, server-side; `fetch` lives in memory only.
        transport: { type: "streamable-http", requestInit: { headers }, fetch: guardedMcpFetch(this.deps.limits()) },
        retry: { maxAttempts: 1 }
      });
      this.#guardedIds.add(id);
      const result = await mcp.connectToServer(id);
      if (result.state === "connected") await mcp.discoverIfConnected(id, { timeoutMs: DISCOVER_TIMEOUT_MS });
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connecting = attempt().catch((error) => console.warn(`[RoomMcp] ${id}: ${String(error)}`));
    this.deps.waitUntil(connecting);
    await Promise.race([
      connecting,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CONNECT_WAIT_MS);
      })
    ]);
    clearTimeout(timer);
  }

  /** The headers the SDK keeps with a server (server-side only). */
  #storedHeaders(id: string): Record<string, string> {
    const stored = this.deps
      .mcp()
      .listServers()
      .find((s) => s.id === id);
    try {
      const options = JSON.parse(stored?.server_options ?? "{}") as {
        transport?: { requestInit?: { headers?: Record<string, string> } };
      };
      return options.transport?.requestInit?.headers ?? {};
    } catch {
      return {};
    }
  }

  /**
   * Every server connected through the guarded fetch: one the SDK restored
   * after a wake (without it) is connected again before the room uses it.
   */
  async #guarded(): Promise<void> {
    for (const row of this.#rows()) {
      if (this.#guardedIds.has(row.id)) continue;
      await this.#connect(row.id, row.name, row.url, this.#storedHeaders(row.id));
    }
  }

  async reconnect(id: string): Promise<McpServerView> {
    const row = this.#row(id);
    await this.#connect(row.id, row.name, row.url, this.#storedHeaders(row.id));
    return this.#view(row);
  }

  async remove(id: string): Promise<void> {
    this.#row(id);
    await this.deps
      .mcp()
      .removeServer(id)
      .catch((error) => console.warn(`[RoomMcp] removing ${id}: ${String(error)}`));
    this.#guardedIds.delete(id);
    const sql = this.#tables();
    sql.exec("DELETE FROM mcp_tool_policies WHERE server_id = ?", id);
    sql.exec("DELETE FROM mcp_servers WHERE id = ?", id);
  }

  async list(): Promise<McpServerView[]> {
    const rows = this.#rows();
    if (rows.length > 0) await this.#guarded();
    return rows.map((row) => this.#view(row));
  }

  updateTool(id: string, tool: string, patch: UpdateMcpToolBody): McpToolView {
    const row = this.#row(id);
    const current = this.#view(row).tools.find((t) => t.name === tool);
    if (!current) throw new AppError("not_found:mcp_tool", 404, `${row.name} offers no tool named ${tool}.`);
    const policy = patch.policy ?? current.policy;
    const personas = patch.personas ?? current.personas;
    this.#tables().exec(
      "INSERT OR REPLACE INTO mcp_tool_policies (server_id, tool, policy, personas) VALUES (?, ?, ?, ?)",
      id,
      tool,
      policy,
      personas ? 1 : 0
    );
    return { ...current, policy, personas };
  }

  /** The tools of every ready server, with their policies (off ones included). */
  async tools(): Promise<RoomMcpTool[]> {
    const rows = this.#rows();
    if (rows.length === 0) return [];
    await this.#guarded();
    // A server still connecting gets a moment before the turn goes on without its tools.
    await this.deps.mcp().waitForConnections({ timeout: 3_000 });
    return rows.flatMap((row) =>
      this.#toolViews(row).map((t) => ({
        serverId: row.id,
        serverName: row.name,
        tool: t.name,
        callName: callNameOf(row.id, t.name),
        description: t.description,
        readOnly: t.readOnly,
        policy: t.policy,
        personas: t.personas
      }))
    );
  }

  #policies(id: string): Map<string, { policy: ToolPolicy; personas: boolean }> {
    const rows = this.#tables()
      .exec<{ tool: string; policy: string; personas: number }>(
        "SELECT tool, policy, personas FROM mcp_tool_policies WHERE server_id = ?",
        id
      )
      .toArray();
    return new Map(rows.map((r) => [r.tool, { policy: r.policy as ToolPolicy, personas: r.personas === 1 }]));
  }

  #toolViews(row: ServerRow): McpToolView[] {
    const connection = this.deps.mcp().mcpConnections[row.id];
    if (!connection || connection.connectionState !== "ready") return [];
    const policies = this.#policies(row.id);
    return this.deps
      .mcp()
      .listTools({ serverId: row.id })
      .filter((t) => CALLABLE.test(callNameOf(row.id, t.name)))
      .map((t) => {
        const readOnly = t.annotations?.readOnlyHint === true;
        const set = policies.get(t.name);
        return {
          name: t.name,
          description: (t.description ?? t.title ?? "").slice(0, 1_000),
          readOnly,
          policy: set?.policy ?? (readOnly ? "allowed" : "ask"),
          personas: set?.personas ?? false
        };
      });
  }

  #view(row: ServerRow): McpServerView {
    const connection = this.deps.mcp().mcpConnections[row.id];
    const state = (connection?.connectionState ?? "failed") as McpServerState;
    return {
      id: row.id,
      name: row.name,
      url: displayUrl(row.url),
      state,
      error: state === "failed" ? (connection?.connectionError ?? "Not connected.") : null,
      headerNames: JSON.parse(row.header_names) as string[],
      tools: this.#toolViews(row),
      addedBy: JSON.parse(row.added_by) as MessageAuthor,
      addedAt: row.added_at
    };
  }
}
