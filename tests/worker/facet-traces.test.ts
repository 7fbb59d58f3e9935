import { describe, expect, it, vi } from "vitest";
import { checkTraceTree } from "@/server/domain/tracing/trace-spans";
import type { AgentTree } from "@/shared/introspection";
import type { TraceSpan } from "@/shared/traces";
import { api, createRoom, uniqueName } from "./helpers";

// Panels with the offline model: each persona facet's work is part of the
// turn's one trace, and its usage counts against the room's daily budget.

const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");

async function addPersona(ws: string, roomId: string, name: string): Promise<{ id: string; name: string }> {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/personas`, { method: "POST", json: { name } });
  expect(response.status).toBe(201);
  return response.json();
}

async function settledTrace(ws: string, roomId: string, traceId: string): Promise<TraceSpan[]> {
  return vi.waitFor(
    async () => {
      const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/traces/${traceId}`);
      const spans = response.ok ? ((await response.json()) as { spans: TraceSpan[] }).spans : [];
      if (spans.length === 0 || spans.some((s) => s.endedAt === null)) throw new Error("trace still open");
      return spans;
    },
    { timeout: 20_000, interval: 100 }
  );
}

/** A panel sent under a client's span; the trace id is the server's, read off the first answer. */
async function panel(ws: string, roomId: string, question: string) {
  const parent = hex(16);
  const sent = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages`, {
    method: "POST",
    headers: { traceparent: `00-${hex(32)}-${parent}-01` },
    json: { text: `/panel ${question}` }
  });
  expect(sent.status).toBe(200);
  const { messages } = (await (await api(`/api/workspaces/${ws}/rooms/${roomId}/messages`)).json()) as {
    messages: any[];
  };
  const traceId: string = messages[1]?.metadata?.traceId ?? "";
  return { traceId, parent, messages };
}

describe("a panel turn's trace", () => {
  it("holds a span per persona, each with its own model call, and the synthesis, in one closed tree", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ada = await addPersona(ws, room.id, "Ada");
    const bob = await addPersona(ws, room.id, "Bob");
    const { traceId, parent, messages } = await panel(ws, room.id, "Tea or coffee?");

    const spans = await settledTrace(ws, room.id, traceId);
    const tree = checkTraceTree(spans, { requireClosed: true });
    expect(tree.problems).toEqual([]);
    expect(tree.root?.parentSpanId).toBe(parent);
    expect(spans.every((s) => s.status === "ok")).toBe(true);

    const turn = spans.find((s) => s.kind === "turn")!;
    const agents = spans.filter((s) => s.kind === "agent");
    expect(agents.map((s) => [s.name, s.agent]).sort()).toEqual([
      ["agent Ada", ada.id],
      ["agent Bob", bob.id]
    ]);
    for (const agent of agents) {
      expect(agent.parentSpanId).toBe(turn.spanId);
      // The persona facet reported its own model call under its span.
      const models = spans.filter((s) => s.kind === "model" && s.parentSpanId === agent.spanId);
      expect(models).toHaveLength(1);
      expect(models[0]).toMatchObject({ agent: agent.agent, model: "rooms-offline", status: "ok" });
      expect(models[0].outputTokens).toBeGreaterThan(0);
      expect(models[0].endedAt).toBeLessThanOrEqual(agent.endedAt!);
    }
    const synthesis = spans.filter((s) => s.name.startsWith("synthesis "));
    expect(synthesis).toHaveLength(1);
    expect(synthesis[0]).toMatchObject({ kind: "model", agent: "room", parentSpanId: turn.spanId });
    for (const agent of agents) expect(synthesis[0].startedAt).toBeGreaterThanOrEqual(agent.endedAt!);

    // Every answer of the panel names the trace.
    const answers = messages.slice(1);
    expect(answers.map((m) => m.metadata.panel)).toEqual(["answer", "answer", "synthesis"]);
    for (const answer of answers) expect(answer.metadata.traceId).toBe(traceId);
  });

  it("charges every persona's usage and the synthesis to the room's day", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await addPersona(ws, room.id, "Ada");
    await addPersona(ws, room.id, "Bob");
    const { messages } = await panel(ws, room.id, "Which editor?");
    const answers = messages.slice(1);
    const charged = answers.reduce((sum, m) => sum + m.metadata.usage.totalTokens, 0);
    const synthesisOnly = answers.at(-1).metadata.usage.totalTokens;
    expect(charged).toBeGreaterThan(synthesisOnly);

    const tree = await vi.waitFor(
      async () => {
        const t = (await (await api(`/api/workspaces/${ws}/rooms/${room.id}/agents`)).json()) as AgentTree;
        if (t.room.status !== "idle") throw new Error(`room still ${t.room.status}`);
        return t;
      },
      { timeout: 20_000, interval: 100 }
    );
    expect(tree.room.tokens?.today).toBe(charged);
    expect(tree.budget?.room).toEqual({ daily: 0, usedToday: charged });
    // And the workspace's day, from what the room reports.
    await vi.waitFor(
      async () => {
        const status = (await (await api(`/api/workspaces/${ws}/status`)).json()) as { tokensToday: number };
        expect(status.tokensToday).toBe(charged);
      },
      { timeout: 20_000, interval: 100 }
    );
  });
});
