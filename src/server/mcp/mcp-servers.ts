/**
 * A room's MCP servers (or the workspace's, below): who added which server,
 * each tool's policy, and the connections themselves. The connections are
 * the agents SDK's (`MCPClientManager`, the room's `this.mcp`): it connects
 * over Streamable HTTP, discovers tools, keeps each server's options (its
 * headers included) in this facet's SQLite and reconnects after a wake. What it lacks, and
 * this adds:
 *
 * - a record of who added a server and when, and per-tool policies
 *   (off / allowed / ask first), in tables of our own;
 * - the room's address rules and response limits on every request
 *   (mcp/mcp-fetch.ts). The SDK does not persist a `fetch`, so a
 *   connection it restored on wake is replaced by a guarded one before
 *   the room uses it (`#guarded`);
 * - a view that never carries a header's value or the URL's query;
 * - OAuth for a room's server that asks for it: the SDK's own flow (a
 *   `callbackUrl` makes it attach its OAuth provider, which keeps the
 *   client registration, PKCE verifier and tokens in this facet's storage;
 *   its discovery and token requests go through the transport's, so the
 *   guarded, fetch). This adds the room's callback address, which the SDK
 *   keeps with the server, and the `authUrl` in the view while the server
 *   waits for a sign-in. The workspace's servers have no callback: one
 *   that asks for OAuth shows as failed, with an error that says to add it
 *   to a room.
 *
 * The turn's tools (with policies, time and size limits, approvals) are
 * built from this by room/mcp-tools.ts.
 *
 * The overseer keeps the workspace's servers with this same class
 * (`scope: "workspace"`, in its own SQLite and MCP client; which is why it
 * lives here, below both agents, and not in room/): the registry,
 * the headers, the policies an admin sets, and a connection of its own
 * that shows their state and tools. The rooms connect to those servers
 * themselves (room/room-workspace-mcp.ts, with `connectGuarded` and
 * `readyToolViews` below).
 */
import type { MCPClientManager } from "agents/mcp/client";
import { AppError } from "@/server/app-error";
import { MCP_CALLBACK_SEGMENT, serverIdOfState } from "@/server/domain/tools/mcp-oauth";
import { checkMcpUrl, displayUrl } from "@/server/domain/tools/mcp-url";
import { defaultPolicy } from "@/server/domain/tools/workspace-mcp-sync";
import type { MessageAuthor } from "@/shared/identity";
import {
  type AddMcpServerBody,
  MAX_MCP_SERVERS_PER_ROOM,
  MAX_MCP_SERVERS_PER_WORKSPACE,
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
export const callNameOf = (serverId: string, tool: string) => `tool_${serverId.replace(/-/g, "")}_${tool}`;
/** Tool parts are stored as `tool-<callName>` (domain/messages/persisted-message.ts keeps at most 64 characters). */
const CALLABLE = /^[A-Za-z0-9_-]{1,59}$/;

export interface McpServersDeps {
  sql: Sql;
  mcp: () => MCPClientManager;
  limits: () => McpFetchLimits;
  waitUntil: (promise: Promise<unknown>) => void;
  /** Whose servers these are: a room's (the default) or the whole workspace's, kept by the overseer. */
  scope?: "room" | "workspace";
}

/** A server to connect to, with its headers (server-side only). */
export interface McpConnectionSpec {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The room's OAuth callback URL (domain/tools/mcp-oauth.ts); without one the server cannot ask for a sign-in. */
  callbackUrl?: string;
}

/**
 * Connects (again) with the guarded fetch; a failure is the server's state,
 * never a thrown error. Waits at most `waitMs`, the connection going on
 * meanwhile. `unpersist` (the SQLite the SDK's client writes to) keeps
 * the server out of the SDK's storage (it saves every server it registers,
 * headers included, and reconnects to them on wake): a room's copy of a
 * workspace server must end with the workspace's list, never outlive it in
 * the room.
 */
export async function connectGuarded(
  deps: Pick<McpServersDeps, "mcp" | "limits" | "waitUntil">,
  { id, name, url, headers, callbackUrl }: McpConnectionSpec,
  { unpersist, waitMs = CONNECT_WAIT_MS }: { unpersist?: Sql; waitMs?: number } = {}
): Promise<void> {
  const mcp = deps.mcp();
  const attempt = async () => {
    if (mcp.mcpConnections[id]) await mcp.closeConnection(id).catch(() => {});
    await mcp.registerServer(id, {
      url,
      name,
      ...(callbackUrl ? { callbackUrl } : {}),
      // The SDK keeps `requestInit` (the headers) with the server, server-side; `fetch` lives in memory only.
      transport: { type: "streamable-http", requestInit: { headers }, fetch: guardedMcpFetch(deps.limits()) },
      retry: { maxAttempts: 1 }
    });
    // The SDK's own table (agents/mcp/client); its later writes update a row only if it is there.
    unpersist?.exec("DELETE FROM cf_agents_mcp_servers WHERE id = ?", id);
    const result = await mcp.connectToServer(id);
    if (result.state === "connected") await mcp.discoverIfConnected(id, { timeoutMs: DISCOVER_TIMEOUT_MS });
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connecting = attempt().catch((error) => console.warn(`[McpServers] ${id}: ${String(error)}`));
  deps.waitUntil(connecting);
  await Promise.race([
    connecting,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    })
  ]);
  clearTimeout(timer);
}

/** A ready server's callable tools with their policies (none while it is not ready). */
export function readyToolViews(
  mcp: MCPClientManager,
  serverId: string,
  policies: ReadonlyMap<string, { policy: ToolPolicy; personas: boolean }>
): McpToolView[] {
  const connection = mcp.mcpConnections[serverId];
  if (!connection || connection.connectionState !== "ready") return [];
  return mcp
    .listTools({ serverId })
    .filter((t) => CALLABLE.test(callNameOf(serverId, t.name)))
    .map((t) => {
      const readOnly = t.annotations?.readOnlyHint === true;
      const set = policies.get(t.name);
      return {
        name: t.name,
        description: (t.description ?? t.title ?? "").slice(0, 1_000),
        readOnly,
        policy: set?.policy ?? defaultPolicy(readOnly),
        personas: set?.personas ?? false
      };
    });
}

export class McpServers {
  #tablesReady = false;
  /** Connections made by this room with its guarded fetch (ids), as opposed to ones the SDK restored. */
  #guardedIds = new Set<string>();

  constructor(private readonly deps: McpServersDeps) {}

  get #scope() {
    return this.deps.scope ?? "room";
  }

  #tables(): Sql {
    const { sql } = this.deps;
    if (!this.#tablesReady) {
      sql.exec(`CREATE TABLE IF NOT EXISTS mcp_servers (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, url TEXT NOT NULL, header_names TEXT NOT NULL,
        added_by TEXT NOT NULL, added_at INTEGER NOT NULL)`);
      sql.exec(`CREATE TABLE IF NOT EXISTS mcp_tool_policies (
        server_id TEXT NOT NULL, tool TEXT NOT NULL, policy TEXT NOT NULL, personas INTEGER NOT NULL,
        PRIMARY KEY (server_id, tool))`);
      // The workspace's headers: kept here, not in the SDK's table (see #connect).
      if (this.#scope === "workspace") {
        sql.exec("CREATE TABLE IF NOT EXISTS mcp_server_headers (server_id TEXT PRIMARY KEY, headers TEXT NOT NULL)");
      }
      this.#tablesReady = true;
    }
    return sql;
  }

  #rows(): ServerRow[] {
    return this.#tables().exec<ServerRow>("SELECT * FROM mcp_servers ORDER BY added_at, id").toArray();
  }

  #row(id: string): ServerRow {
    const row = this.#tables().exec<ServerRow>("SELECT * FROM mcp_servers WHERE id = ?", id).toArray()[0];
    if (!row) throw new AppError("not_found:mcp_server", 404, `This ${this.#scope} has no MCP server with that id.`);
    return row;
  }

  hasServers(): boolean {
    return this.#rows().length > 0;
  }

  async add(body: AddMcpServerBody, by: MessageAuthor, callbackUrl?: string): Promise<McpServerView> {
    const limits = this.deps.limits();
    const url = checkMcpUrl(body.url, limits).toString();
    const max = this.#scope === "room" ? MAX_MCP_SERVERS_PER_ROOM : MAX_MCP_SERVERS_PER_WORKSPACE;
    if (this.#rows().length >= max) {
      throw new AppError("conflict:mcp_limit", 409, `A ${this.#scope} has at most ${max} MCP servers.`);
    }
    // Rooms connect to their own servers and the workspace's in one client: the prefix keeps the ids apart.
    const id = `${this.#scope === "room" ? "s" : "w"}${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;
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
    if (this.#scope === "workspace") {
      this.#tables().exec(
        "INSERT INTO mcp_server_headers (server_id, headers) VALUES (?, ?)",
        id,
        JSON.stringify(headers)
      );
    }
    await this.#connect(id, body.name, url, headers, this.#callbackFor(callbackUrl));
    return this.#view(this.#row(id));
  }

  /**
   * The workspace's servers stay out of the SDK's storage: it would connect
   * to each of them, unguarded, whenever the overseer wakes (which is often,
   * and on the workspace's one thread); they are connected, guarded, when
   * an admin lists them instead (`#guarded`).
   */
  async #connect(
    id: string,
    name: string,
    url: string,
    headers: Record<string, string>,
    callbackUrl?: string
  ): Promise<void> {
    this.#guardedIds.add(id);
    const unpersist = this.#scope === "workspace" ? this.deps.sql : undefined;
    await connectGuarded(this.deps, { id, name, url, headers, callbackUrl }, { unpersist });
  }

  /** Only a room's servers sign in: the workspace's tokens would have to reach every room, which is not built. */
  #callbackFor(callbackUrl: string | undefined): string | undefined {
    return this.#scope === "room" ? callbackUrl : undefined;
  }

  /** The SDK's row for a room's server (its options, headers included, and its OAuth callback URL). */
  #sdkRow(id: string) {
    try {
      return this.deps
        .mcp()
        .listServers()
        .find((s) => s.id === id);
    } catch {
      // The SDK's table is made when the first server is; a room without one has nothing to find.
      return undefined;
    }
  }

  /** The callback URL the SDK keeps with a room's server ("" or undefined when it has none). */
  #storedCallbackUrl(id: string): string | undefined {
    if (this.#scope !== "room") return undefined;
    return this.#sdkRow(id)?.callback_url || undefined;
  }

  /**
   * The room's copy of its OAuth callback as the public URL. The overseer
   * forwards `…/sub/chat-room/<id>/mcp-callback` to this room as
   * `/mcp-callback` (the framework's sub-agent routing strips the parent's
   * path), while the SDK's client claims a callback only at the exact URL it
   * registered: so a request at that path with a state naming one of this
   * room's servers is given back its public URL, and anything else is
   * returned as it came (and refused by the room).
   */
  outerCallbackRequest(request: Request): Request {
    const url = new URL(request.url);
    if (request.method !== "GET" || url.pathname !== `/${MCP_CALLBACK_SEGMENT}`) return request;
    const serverId = serverIdOfState(url.searchParams.get("state"));
    const stored = serverId ? this.#storedCallbackUrl(serverId) : undefined;
    if (!stored) return request;
    const outer = new URL(stored);
    if (outer.origin !== url.origin) return request;
    outer.search = url.search;
    return new Request(outer, { method: "GET", headers: request.headers });
  }

  /** Every server with its headers, for the rooms to connect to (the workspace's; server-side only). */
  connectionSpecs(): McpConnectionSpec[] {
    return this.#rows().map((row) => ({
      id: row.id,
      name: row.name,
      url: row.url,
      headers: this.#storedHeaders(row.id)
    }));
  }

  /** The policies set for a server's tools, by tool name. */
  policiesOf(id: string): Map<string, { policy: ToolPolicy; personas: boolean }> {
    return this.#policies(id);
  }

  /** The headers kept with a server (server-side only): the SDK keeps a room's, this class the workspace's. */
  #storedHeaders(id: string): Record<string, string> {
    if (this.#scope === "workspace") {
      const row = this.#tables()
        .exec<{ headers: string }>("SELECT headers FROM mcp_server_headers WHERE server_id = ?", id)
        .toArray()[0];
      return row ? (JSON.parse(row.headers) as Record<string, string>) : {};
    }
    const stored = this.#sdkRow(id);
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
   * after a wake (without it) is connected again before the room uses it,
   * except one waiting for a sign-in, which is guarded in place.
   */
  async #guarded(): Promise<void> {
    this.guardRestored();
    for (const row of this.#rows()) {
      if (this.#guardedIds.has(row.id)) continue;
      await this.#connect(row.id, row.name, row.url, this.#storedHeaders(row.id), this.#storedCallbackUrl(row.id));
    }
  }

  /**
   * The guarded fetch for the connections the SDK restored after a wake
   * waiting for a sign-in (it does not persist a `fetch`, and does not
   * connect them), given in place rather than by connecting again
   * (`#guarded`): a new connection would start a new sign-in, replacing the
   * PKCE verifier that the code of a sign-in under way needs.
   */
  guardRestored(): void {
    const mcp = this.deps.mcp();
    for (const row of this.#rows()) {
      const connection = mcp.mcpConnections[row.id];
      if (!connection || connection.connectionState !== "authenticating" || this.#guardedIds.has(row.id)) continue;
      // An HTTP connection's options (this room's servers are Streamable HTTP; the union also has RPC's).
      (connection.options.transport as { fetch?: typeof fetch }).fetch = guardedMcpFetch(this.deps.limits());
      this.#guardedIds.add(row.id);
    }
  }

  async reconnect(id: string, callbackUrl?: string): Promise<McpServerView> {
    const row = this.#row(id);
    const callback = this.#callbackFor(callbackUrl) ?? this.#storedCallbackUrl(row.id);
    await this.#connect(row.id, row.name, row.url, this.#storedHeaders(row.id), callback);
    return this.#view(row);
  }

  async remove(id: string): Promise<void> {
    this.#row(id);
    await this.deps
      .mcp()
      .removeServer(id)
      .catch((error) => console.warn(`[McpServers] removing ${id}: ${String(error)}`));
    this.#guardedIds.delete(id);
    const sql = this.#tables();
    sql.exec("DELETE FROM mcp_tool_policies WHERE server_id = ?", id);
    if (this.#scope === "workspace") sql.exec("DELETE FROM mcp_server_headers WHERE server_id = ?", id);
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
    return readyToolViews(this.deps.mcp(), row.id, this.#policies(row.id));
  }

  /**
   * Why a server that asks for OAuth cannot be signed in to: it has no
   * callback. The SDK leaves such a connection `authenticating` with no
   * sign-in address, which the view shows as failed, with what to do.
   */
  #noSignIn(): string {
    return this.#scope === "workspace"
      ? "This server asks for an OAuth sign-in, which only a room's own servers can do for now: add it to a room instead, or give it a token in a header."
      : "This server asks for an OAuth sign-in: reconnect it to get a sign-in link.";
  }

  #view(row: ServerRow): McpServerView {
    const connection = this.deps.mcp().mcpConnections[row.id];
    const reported = (connection?.connectionState ?? "failed") as McpServerState;
    // After a wake the SDK knows the sign-in address from its storage only.
    const authUrl =
      reported === "authenticating"
        ? (connection?.options.transport.authProvider?.authUrl ?? this.#sdkRow(row.id)?.auth_url ?? null)
        : null;
    const cannotSignIn = reported === "authenticating" && !authUrl;
    const state = cannotSignIn ? "failed" : reported;
    return {
      id: row.id,
      name: row.name,
      url: displayUrl(row.url),
      state,
      error: cannotSignIn
        ? this.#noSignIn()
        : state === "failed"
          ? (connection?.connectionError ?? "Not connected.")
          : null,
      authUrl,
      headerNames: JSON.parse(row.header_names) as string[],
      tools: this.#toolViews(row),
      addedBy: JSON.parse(row.added_by) as MessageAuthor,
      addedAt: row.added_at
    };
  }
}
