/**
 * The overseer's half of the workspace's MCP servers
 * (agents/overseer/workspace-mcp.ts), over a stand-in registry: which rooms
 * hear of a change, with what list, and that a room failing to hear it
 * does not fail the admin's change.
 */
import { describe, expect, it } from "vitest";
import { WorkspaceMcp } from "@/server/agents/overseer/workspace-mcp";
import type { WorkspaceMcpServer } from "@/server/domain/tools/workspace-mcp-sync";
import type { McpServers } from "@/server/mcp/mcp-servers";
import type { MessageAuthor } from "@/shared/identity";

const ADA: MessageAuthor = { id: "u1", name: "Ada" };

function setup() {
  const specs = [{ id: "wa", name: "Docs", url: "https://docs.example.com/mcp", headers: { "X-Key": "k" } }];
  const servers = {
    connectionSpecs: () => specs,
    policiesOf: () => new Map([["search", { policy: "allowed" as const, personas: false }]]),
    add: async () => ({ id: "wb" }),
    remove: async (id: string) =>
      void specs.splice(
        specs.findIndex((s) => s.id === id),
        1
      ),
    reconnect: async (id: string) => ({ id }),
    updateTool: () => ({ name: "search" }),
    list: async () => []
  } as unknown as McpServers;
  const rooms = new Set(["r1", "r2", "r3"]);
  const told: Array<{ roomId: string; servers: WorkspaceMcpServer[]; who: MessageAuthor }> = [];
  const failing = new Set<string>();
  const mcp = new WorkspaceMcp({
    servers,
    exists: (roomId) => rooms.has(roomId),
    tell: async (roomId, list, who) => {
      if (failing.has(roomId)) throw new Error("facet reset");
      told.push({ roomId, servers: list, who });
    }
  });
  return { mcp, rooms, told, failing };
}

describe("the workspace's MCP servers, the overseer's half", () => {
  it("answers a room the list with headers and policies, and tells only rooms that asked of a change", async () => {
    const { mcp, told } = setup();
    expect(mcp.forRoom("r1")).toEqual([
      {
        id: "wa",
        name: "Docs",
        url: "https://docs.example.com/mcp",
        headers: { "X-Key": "k" },
        generation: 0,
        policies: { search: { policy: "allowed", personas: false } }
      }
    ]);
    mcp.forRoom("r2");
    await mcp.call({ op: "updateTool", serverId: "wa", tool: "search", body: { policy: "off" } }, ADA);
    expect(told.map((t) => t.roomId).sort()).toEqual(["r1", "r2"]);
    expect(told.every((t) => t.who === ADA)).toBe(true);
    // Listing changes nothing: nobody is told.
    await mcp.call({ op: "servers" }, ADA);
    expect(told).toHaveLength(2);
  });

  it("raises a server's generation on reconnect, so rooms connect again; a removal sends the list without it", async () => {
    const { mcp, told } = setup();
    mcp.forRoom("r1");
    await mcp.call({ op: "reconnect", serverId: "wa" }, ADA);
    expect(told.at(-1)?.servers.map((s) => [s.id, s.generation])).toEqual([["wa", 1]]);
    await mcp.call({ op: "reconnect", serverId: "wa" }, ADA);
    expect(told.at(-1)?.servers.map((s) => [s.id, s.generation])).toEqual([["wa", 2]]);
    await mcp.call({ op: "removeServer", serverId: "wa" }, ADA);
    expect(told.at(-1)?.servers).toEqual([]);
  });

  it("stops telling a deleted or forgotten room, and a room that cannot be told does not fail the change", async () => {
    const { mcp, rooms, told, failing } = setup();
    for (const id of ["r1", "r2", "r3"]) mcp.forRoom(id);
    rooms.delete("r2");
    mcp.forget("r3");
    failing.add("r1");
    await expect(mcp.call({ op: "reconnect", serverId: "wa" }, ADA)).resolves.toEqual({ id: "wa" });
    expect(told).toEqual([]);
    failing.clear();
    rooms.add("r2");
    await mcp.call({ op: "reconnect", serverId: "wa" }, ADA);
    // r2 was dropped when it was gone, r3 forgotten: only r1, which asked and still exists.
    expect(told.map((t) => t.roomId)).toEqual(["r1"]);
  });
});
