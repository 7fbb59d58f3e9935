import { describe, expect, it, vi } from "vitest";
import { checkTraceTree } from "@/server/domain/tracing/trace-spans";
import type { SendMessageResult } from "@/shared/protocol";
import type { TraceList, TraceSpan } from "@/shared/traces";
import { api, createRoom, uniqueName } from "./helpers";

// A client's `traceparent` is the parent of a turn's trace, never its key:
// a client that sends the trace id of another turn (its own earlier one, or
// another member's read off an answer's metadata) gets a trace of its own,
// and the earlier trace keeps its spans, status and answer.

const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");

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

async function sendTraced(ws: string, roomId: string, text: string, traceparent: string) {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages`, {
    method: "POST",
    headers: { traceparent },
    json: { text }
  });
  expect(response.status).toBe(200);
  return (await response.json()) as SendMessageResult;
}

describe("a client's traceparent", () => {
  it("is the root's parent; a reused trace id starts a trace of its own and leaves the earlier one whole", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const clientTrace = hex(32);
    const firstParent = hex(16);
    const first = await sendTraced(ws, room.id, "first", `00-${clientTrace}-${firstParent}-01`);
    const firstTrace = first.assistantMessage?.metadata?.traceId ?? "";
    expect(firstTrace).toMatch(/^[0-9a-f]{32}$/);
    const before = await settledTrace(ws, room.id, firstTrace);
    const tree = checkTraceTree(before, { requireClosed: true });
    expect(tree.problems).toEqual([]);
    expect(tree.root?.parentSpanId).toBe(firstParent);

    // The same trace id again (and the server's own id, read off the answer).
    const second = await sendTraced(ws, room.id, "second", `00-${clientTrace}-${hex(16)}-01`);
    const third = await sendTraced(ws, room.id, "third", `00-${firstTrace}-${hex(16)}-01`);
    const ids = [firstTrace, second.assistantMessage?.metadata?.traceId, third.assistantMessage?.metadata?.traceId];
    expect(new Set(ids).size).toBe(3);
    for (const id of ids.slice(1)) await settledTrace(ws, room.id, id ?? "");

    const after = await settledTrace(ws, room.id, firstTrace);
    expect(after).toEqual(before);
    const { traces } = (await (await api(`/api/workspaces/${ws}/rooms/${room.id}/traces`)).json()) as TraceList;
    expect(traces.find((t) => t.traceId === firstTrace)).toMatchObject({
      status: "ok",
      spanCount: before.length,
      messageId: first.assistantMessage?.id
    });
  });
});
