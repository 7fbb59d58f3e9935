/**
 * What a room changes in agents 0.32 (agents/room/framework-patches.ts),
 * checked against the framework as installed: if an upgrade changes its
 * shape, the patches stand down and these tests say so.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import { chatRequest, connect, createRoom, isDone, roomPath, uniqueName } from "./helpers";

const isDelta = (requestId: string) => (f: any) =>
  f?.type === "cf_agent_use_chat_response" &&
  f.id === requestId &&
  typeof f.body === "string" &&
  f.body.includes('"text-delta"');

/** The runs of facets the overseer has listed for recovery by its alarm. */
function listedRuns(ws: string): Promise<number> {
  const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
  return runInDurableObject(stub, (_overseer: OverseerAgent, state) => {
    const tables = state.storage.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'cf_agents_facet_runs'")
      .one().n;
    if (tables === 0) return 0;
    return state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cf_agents_facet_runs").one().n;
  });
}

describe("a room's turn and the overseer", () => {
  it("finds the framework as its patches expect it (each says so when it cannot apply)", async () => {
    const warn = vi.spyOn(console, "warn");
    try {
      const ws = uniqueName();
      const room = await createRoom(ws);
      const socket = await connect(roomPath(ws, room.id));
      const { id, frame } = chatRequest("hello");
      socket.send(frame);
      await socket.next(isDone(id), 20_000);
      socket.ws.close();
      expect(warn.mock.calls.map((call) => String(call[0])).filter((text) => text.startsWith("[ChatRoom]"))).toEqual(
        []
      );
    } finally {
      warn.mockRestore();
    }
  });

  it("does not list a turn with the overseer while it streams its first seconds", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    // The offline model streams its answer a chunk every 15 ms: the turn is running while it does.
    const { id, frame } = chatRequest("a question whose answer takes a moment");
    socket.send(frame);
    await socket.next(isDelta(id), 10_000);
    expect(await listedRuns(ws)).toBe(0);
    await socket.next(isDone(id), 20_000);
    expect(await listedRuns(ws)).toBe(0);
    socket.ws.close();
  });
});
