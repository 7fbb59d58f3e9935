import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import type { AgentTree, WorkspaceStatus } from "../../src/shared/introspection";
import { waitFor } from "../support/wait";
import { api, chatRequest, connect, createRoom, isDone, roomPath, uniqueName, workspaceAdmin } from "./helpers";

async function status(ws: string): Promise<WorkspaceStatus> {
  const response = await api(`/api/workspaces/${ws}/status`);
  expect(response.status).toBe(200);
  return response.json();
}

/** Counts every time the overseer reaches for a room facet (all facet access goes through ctx.facets.get). */
async function countFacetAccess(ws: string): Promise<() => Promise<number>> {
  const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
  await runInDurableObject(stub, (overseer: OverseerAgent) => {
    const ctx = (overseer as unknown as { ctx: { facets: { get: (...args: unknown[]) => unknown } } }).ctx;
    const counter = ctx as unknown as { facetGets?: number };
    if (counter.facetGets !== undefined) return;
    counter.facetGets = 0;
    const original = ctx.facets.get.bind(ctx.facets);
    ctx.facets.get = (...args: unknown[]) => {
      counter.facetGets = (counter.facetGets ?? 0) + 1;
      return original(...args);
    };
  });
  return () =>
    runInDurableObject(
      stub,
      (overseer: OverseerAgent) => (overseer as unknown as { ctx: { facetGets: number } }).ctx.facetGets
    );
}

describe("workspace status", () => {
  it("sums what rooms reported, largest storage first, without reaching any room", async () => {
    const ws = uniqueName();
    const quiet = await createRoom(ws, { name: "quiet" });
    const busy = await createRoom(ws, { name: "busy" });
    expect(
      (await api(`/api/workspaces/${ws}/rooms/${busy.id}/messages`, { method: "POST", json: { text: "hi" } })).status
    ).toBe(200);
    const socket = await connect(roomPath(ws, busy.id));
    const reported = await waitFor(
      () => status(ws),
      (s) => s.tokensToday > 0 && s.sockets.rooms === 1 && s.storage[0]?.id === busy.id
    );
    expect(reported).toMatchObject({ workspace: ws, rooms: 2, streaming: 0, dailyTokenBudget: 0 });
    expect(reported.storage.map((r) => r.id)).toEqual([busy.id, quiet.id]);
    expect(reported.storage[0].bytes).toBeGreaterThan(reported.storage[1].bytes);

    const facetGets = await countFacetAccess(ws);
    const before = await facetGets();
    const again = await status(ws);
    expect(again.rooms).toBe(2);
    expect(await facetGets()).toBe(before);
    // The spy sees room access when there is some.
    expect((await api(`/api/workspaces/${ws}/rooms/${quiet.id}`)).status).toBe(200);
    expect(await facetGets()).toBeGreaterThan(before);
    socket.ws.close();
    await waitFor(
      () => status(ws),
      (s) => s.sockets.rooms === 0
    );
  });

  it("answers /api/status for the default workspace", async () => {
    const response = await api("/api/status");
    expect(response.status).toBe(200);
    expect(((await response.json()) as WorkspaceStatus).workspace).toBe("default");
  });
});

describe("a room's agent tree", () => {
  it("reports the room idle after an answer, with its storage, messages and tokens", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    const { id, frame } = chatRequest("tell me something long");
    socket.send(frame);
    await socket.next(isDone(id), 20_000);
    const tree = await waitFor(
      async () => (await (await api(`/api/workspaces/${ws}/rooms/${room.id}/agents`)).json()) as AgentTree,
      (t) => t.room.status === "idle"
    );
    expect(tree.room).toMatchObject({ id: room.id, kind: "room", activity: null, messages: 2, children: [] });
    expect(tree.room.storageBytes).toBeGreaterThan(0);
    expect(tree.room.tokens?.today).toBeGreaterThan(0);
    expect(tree.room.lastActiveAt).toBeGreaterThan(0);
    socket.ws.close();
  });
});

describe("daily token budgets", () => {
  it("refuses a turn once the room's budget is used, with a structured error and no answer text", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const patched = await api(`/api/workspaces/${ws}/rooms/${room.id}`, {
      method: "PATCH",
      json: { dailyTokenBudget: 1 }
    });
    expect(patched.status).toBe(200);
    const first = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "one" }
    });
    expect(first.status).toBe(200);
    const second = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "two" }
    });
    expect(second.status).toBe(429);
    const body = (await second.json()) as any;
    expect(body.errorCode).toBe("budget_exceeded:room");
    expect(body.assistantMessage.metadata).toMatchObject({ errorCode: "budget_exceeded:room" });
    expect(body.assistantMessage.metadata.error).toMatch(/daily budget of 1 tokens/);
    expect(body.assistantMessage.parts.filter((p: any) => p.type === "text")).toEqual([]);
    // 0 = unlimited again.
    await api(`/api/workspaces/${ws}/rooms/${room.id}`, { method: "PATCH", json: { dailyTokenBudget: 0 } });
    const third = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "three" }
    });
    expect(third.status).toBe(200);
  });

  it("refuses a turn once the workspace's budget is used, over the socket too", async () => {
    const ws = uniqueName();
    // Only an admin sets the workspace's budget.
    const admin = await workspaceAdmin(ws);
    const settings = await api(`/api/workspaces/${ws}/settings`, {
      method: "PATCH",
      json: { dailyTokenBudget: 1 },
      headers: admin.headers
    });
    expect(await settings.json()).toEqual({ dailyTokenBudget: 1 });
    const a = await createRoom(ws);
    const b = await createRoom(ws);
    expect(
      (await api(`/api/workspaces/${ws}/rooms/${a.id}/messages`, { method: "POST", json: { text: "one" } })).status
    ).toBe(200);
    await waitFor(
      () => status(ws),
      (s) => s.tokensToday > 0
    );
    const socket = await connect(roomPath(ws, b.id));
    const { id, frame } = chatRequest("two");
    socket.send(frame);
    await socket.next(isDone(id), 20_000);
    const page = await waitFor(
      async () => (await (await api(`/api/workspaces/${ws}/rooms/${b.id}/messages`)).json()) as any,
      (p) => p.messages.length === 2
    );
    expect(page.messages.at(-1).metadata).toMatchObject({ errorCode: "budget_exceeded:workspace" });
    expect(page.messages.at(-1).metadata.error).toMatch(/workspace has used its daily budget of 1 tokens/);
    socket.ws.close();
  });

  it("validates budget settings", async () => {
    const ws = uniqueName();
    for (const bad of [-1, 1.5, "10", 2_000_000_000]) {
      const response = await api(`/api/workspaces/${ws}/settings`, {
        method: "PATCH",
        json: { dailyTokenBudget: bad }
      });
      expect(response.status).toBe(400);
    }
  });
});
