/**
 * Delegation with the offline model ("delegate: …" makes it call the tool),
 * inside workerd: a finished task's facet is gone from the room once its
 * result is in the transcript, whether the assistant waited for it or it
 * ran in the background.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import { RoomDelegation } from "../../src/server/agents/room/delegation";
import { DEFAULT_TASK_LIMITS, MAX_TASKS_PER_ROOM } from "../../src/server/domain/facets/delegation-limits";
import { ChatRoom } from "../../src/server/index";
import { api, createRoom, history, uniqueName } from "./helpers";

vi.setConfig({ testTimeout: 90_000 });

async function taskFacets(ws: string, roomId: string): Promise<string[]> {
  const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
  return runInDurableObject(stub, async (overseer: OverseerAgent) => {
    const room = await overseer.dynamicAgents.get(ChatRoom, roomId);
    return room.taskFacets();
  });
}

const textOf = (m: any) =>
  m.parts
    .filter((p: any) => p.type === "text")
    .map((p: any) => p.text)
    .join("");

describe("delegation with the offline model", () => {
  it("runs a task the assistant waits for, uses its result, and removes its facet", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "delegate: Summarise the launch plan" }
    });
    expect(sent.status).toBe(200);
    const answer = (await history(ws, room.id)).at(-1);
    const call = answer.parts.find((p: any) => p.type === "tool-delegate");
    expect(call.input).toEqual({ task: "Summarise the launch plan" });
    expect(call.output).toMatchObject({ ok: true, status: "completed" });
    expect(call.output.result).toContain("answering as a task");
    expect(call.output.result).toContain("Summarise the launch plan");
    expect(textOf(answer)).toContain("The tool answered");
    // The room clears finished tasks when the turn's answer is stored (which may follow the REST reply).
    await vi.waitFor(async () => expect(await taskFacets(ws, room.id)).toEqual([]), { timeout: 20_000, interval: 250 });
  });

  it("posts a background task's result as a message from that task, and removes its facet", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "delegate later: Count the chairs" }
    });
    expect(sent.status).toBe(200);
    const posted = await vi.waitFor(
      async () => {
        const found = (await history(ws, room.id)).find((m) => m.metadata?.task);
        if (!found) throw new Error("no task result yet");
        return found;
      },
      { timeout: 60_000, interval: 250 }
    );
    expect(posted.metadata.task).toMatchObject({ asked: "Count the chairs", status: "completed" });
    expect(textOf(posted)).toContain("answering as a task");
    await vi.waitFor(async () => expect(await taskFacets(ws, room.id)).toEqual([]), { timeout: 30_000, interval: 250 });
  });
});

describe("the room's cap on tasks at once", () => {
  it("holds for parallel delegate calls in one step: each takes its slot before it waits", async () => {
    // A room whose task runs start only when the test lets them: every call is in flight at once.
    const starts: Array<() => void> = [];
    const room = {
      runAgentTool: (_agent: unknown, options: { runId: string }) =>
        new Promise((resolve) => starts.push(() => resolve({ runId: options.runId, status: "running" })))
    };
    const delegation = new RoomDelegation(
      room as any,
      async () => {},
      () => DEFAULT_TASK_LIMITS
    );
    const delegate = delegation.tool();
    const calls = Array.from({ length: MAX_TASKS_PER_ROOM + 2 }, (_, i) =>
      (delegate.execute as any)({ task: `task ${i}`, background: true }, { toolCallId: `call-${i}`, messages: [] })
    );
    await vi.waitFor(() => expect(starts.length).toBeGreaterThan(0));
    for (const start of starts) start();
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o.status === "running")).toHaveLength(MAX_TASKS_PER_ROOM);
    expect(outcomes.filter((o) => o.status === "refused")).toHaveLength(2);
    expect(starts).toHaveLength(MAX_TASKS_PER_ROOM);
  });
});
