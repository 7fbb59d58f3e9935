/**
 * MCP servers of a whole workspace, as its rooms use them (pure).
 *
 * The overseer keeps the registry (agents/overseer/workspace-mcp.ts): the
 * servers, their headers and their tools' policies, in its own SQLite. Each
 * room connects to them itself, from its own facet, like to its own
 * servers (agents/room/room-workspace-mcp.ts): tool calls are the room's
 * work, and a slow server slows that room only, never the workspace's one
 * thread.
 *
 * A room keeps a copy of the list. It asks for one when a turn starts
 * without a copy (after a wake) or with one older than
 * COPY_MAX_AGE_MS, and the overseer sends the new list to every room that
 * asked since it woke whenever the list changes. So a turn costs the
 * overseer nothing in the steady state, and the room compares a few ids.
 * The age bound covers a notice that was lost.
 *
 * A room never writes the workspace's servers to its own storage: the
 * overseer's list is the only record, so a server removed while a room
 * slept is not reconnected (nor its headers kept) when the room wakes.
 */
import type { ToolPolicy } from "@/shared/tools";

/** How long a room uses its copy of the list without asking again. */
export const COPY_MAX_AGE_MS = 5 * 60_000;

/** One workspace server as a room needs it to connect (server-side only: it carries the headers). */
export interface WorkspaceMcpServer {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  /**
   * Raised by each reconnect an admin asks for: a room holding an older
   * generation connects again.
   */
  generation: number;
  /** The policies an admin set, by tool name; a tool not here has its default. */
  policies: Record<string, { policy: ToolPolicy; personas: boolean }>;
}

/** A tool's policy when nobody set one: the server's word that it only reads is trusted to run without asking. */
export function defaultPolicy(readOnly: boolean): ToolPolicy {
  return readOnly ? "allowed" : "ask";
}

/** Whether a copy learned at `learnedAt` may still be used, or the room asks again. */
export function copyIsFresh(learnedAt: number | null, now = Date.now()): boolean {
  return learnedAt !== null && now >= learnedAt && now - learnedAt <= COPY_MAX_AGE_MS;
}

/**
 * What a room does to match the list: connect the servers it lacks or holds
 * at an older generation, drop the ones the list no longer has.
 * `connected`: the room's workspace connections, id → generation.
 */
export function planSync(
  connected: ReadonlyMap<string, number>,
  servers: readonly WorkspaceMcpServer[]
): { connect: WorkspaceMcpServer[]; drop: string[] } {
  const listed = new Set(servers.map((s) => s.id));
  return {
    connect: servers.filter((s) => connected.get(s.id) !== s.generation),
    drop: [...connected.keys()].filter((id) => !listed.has(id))
  };
}
