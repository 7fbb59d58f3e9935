import { describe, expect, it } from "vitest";
import { checkTraceTree, parseTraceparent } from "@/server/domain/tracing/trace-spans";
import type { AgentTree } from "@/shared/introspection";
import type { SendMessageResult } from "@/shared/protocol";
import type { TraceList, TraceSpan } from "@/shared/traces";
import { chatRequest, isDone, isResponse, messageText } from "../support/chat-protocol";
import { toolDirective } from "../support/fake-openai";
import { type RestClient, restClient } from "../support/rest-client";
import { openSocket } from "../support/socket";
import { useTestApp } from "../support/test-app";
import { waitFor } from "../support/wait";

// Traces over the real dev server: the client's traceparent reaches the
// room as the parent of the trace's root (the trace id is the room's own),
// and every span it records, and the provider's request headers.
const app = useTestApp({ vars: { MODEL_IDLE_TIMEOUT_MS: "3000" }, restartsServer: true });

const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
function clientContext() {
  const traceId = hex(32);
  const spanId = hex(16);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}
type ClientContext = ReturnType<typeof clientContext>;

/** A fresh room whose socket has started an answer under the client's trace, `deltas` text deltas in. */
async function tracedAnswerStreaming(text: string, deltas: number) {
  const api = restClient(app.url);
  const room = await api.createRoom();
  const ctx = clientContext();
  const socket = await openSocket(api.roomSocketUrl(room.id));
  const { id, frame } = chatRequest(text, { traceparent: ctx.traceparent });
  socket.send(frame);
  await waitFor(
    async () => socket.frames.filter((f) => isResponse(id)(f) && String(f.body ?? "").includes("text-delta")).length,
    (n) => n >= deltas,
    15_000,
    `${deltas} text deltas of "${text}"`
  );
  return { api, room, ctx, socket, id };
}

/** A REST send carrying the client's traceparent. */
function sendTraced(api: RestClient, roomId: string, text: string, ctx: ClientContext) {
  return api.call(`/${roomId}/messages`, { method: "POST", headers: { traceparent: ctx.traceparent }, json: { text } });
}

async function trace(api: RestClient, roomId: string, traceId: string): Promise<TraceSpan[]> {
  const response = await api.call(`/${roomId}/traces/${traceId}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { spans: TraceSpan[] }).spans;
}

/** Waits until the trace has no running span (the turn's ending is recorded just after the answer). */
function settledTrace(api: RestClient, roomId: string, traceId: string, timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const response = await api.call(`/${roomId}/traces/${traceId}`);
      return response.ok ? ((await response.json()) as { spans: TraceSpan[] }).spans : [];
    },
    (spans) => spans.length > 0 && spans.every((s) => s.endedAt !== null),
    timeoutMs
  );
}

/** The one trace of a fresh room with one turn: its id is the room's, whatever the client sent. */
async function onlyTrace(api: RestClient, roomId: string): Promise<string> {
  const list = await waitFor(
    async () => ((await (await api.call(`/${roomId}/traces`)).json()) as TraceList).traces,
    (traces) => traces.length > 0
  );
  expect(list).toHaveLength(1);
  return list[0].traceId;
}

function upstreamFor(traceId: string) {
  return app.fake.requests.filter((r) => parseTraceparent(r.headers.traceparent)?.traceId === traceId);
}

describe("traces", () => {
  it("a plain REST answer: one closed tree from the client's traceparent to the provider request", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const ctx = clientContext();
    const response = await sendTraced(api, room.id, "hello traces", ctx);
    expect(response.status).toBe(200);
    const body = (await response.json()) as SendMessageResult;
    const traceId = body.assistantMessage?.metadata?.traceId ?? "";
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe(ctx.traceId);

    const spans = await settledTrace(api, room.id, traceId);
    const tree = checkTraceTree(spans, { requireClosed: true });
    expect(tree.problems).toEqual([]);
    expect(tree.root?.parentSpanId).toBe(ctx.spanId);
    expect(spans.map((s) => s.kind).sort()).toEqual(["model", "queue", "request", "turn"]);
    expect(spans.every((s) => s.status === "ok")).toBe(true);

    const model = spans.find((s) => s.kind === "model")!;
    const turn = spans.find((s) => s.kind === "turn")!;
    expect(model.parentSpanId).toBe(turn.spanId);
    expect(model.model).toBe("fake-model");
    expect(model.outputTokens).toBeGreaterThan(0);
    expect(model.firstTokenAt).not.toBeNull();
    expect(turn.outputTokens).toBe(body.assistantMessage!.metadata!.usage!.outputTokens);

    // The provider got the model span's own context.
    const upstream = upstreamFor(traceId);
    expect(upstream).toHaveLength(1);
    expect(parseTraceparent(upstream[0].headers.traceparent)?.spanId).toBe(model.spanId);

    const list = await api.call(`/${room.id}/traces`);
    const { traces } = (await list.json()) as TraceList;
    expect(traces[0]).toMatchObject({ traceId, status: "ok", messageId: body.assistantMessage?.id });
  });

  it("without a traceparent a trace is created, and a malformed one is replaced", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const plain = await api.send(room.id, "no header");
    const created = plain.body.assistantMessage.metadata.traceId;
    expect(created).toMatch(/^[0-9a-f]{32}$/);
    const response = await api.call(`/${room.id}/messages`, {
      method: "POST",
      headers: { traceparent: `00-${"0".repeat(32)}-${hex(16)}-01` },
      json: { text: "bad header" }
    });
    const replaced = ((await response.json()) as SendMessageResult).assistantMessage?.metadata?.traceId ?? "";
    expect(replaced).toMatch(/^[0-9a-f]{32}$/);
    expect(replaced).not.toBe("0".repeat(32));
    const spans = await settledTrace(api, room.id, replaced);
    expect(checkTraceTree(spans, { requireClosed: true }).root?.parentSpanId).toBeNull();
    expect((await api.call(`/${room.id}/traces/${hex(32)}`)).status).toBe(404);
    expect((await api.call(`/${room.id}/traces/nope`)).status).toBe(400);
  });

  it("a tool call over the WebSocket: model, tool, model under one turn", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const ctx = clientContext();
    const socket = await openSocket(api.roomSocketUrl(room.id));
    const { id, frame } = chatRequest("[[fake:tool=get_current_time]] what time is it", {
      traceparent: ctx.traceparent
    });
    socket.send(frame);
    await socket.next(isDone(id), 30_000);
    socket.close();

    const traceId = await onlyTrace(api, room.id);
    const spans = await settledTrace(api, room.id, traceId);
    const tree = checkTraceTree(spans, { requireClosed: true });
    expect(tree.problems).toEqual([]);
    expect(tree.root?.parentSpanId).toBe(ctx.spanId);
    const turn = spans.find((s) => s.kind === "turn")!;
    const models = spans.filter((s) => s.kind === "model");
    const tools = spans.filter((s) => s.kind === "tool");
    expect(models).toHaveLength(2);
    expect(tools.map((t) => t.name)).toEqual(["tool get_current_time"]);
    for (const span of [...models, ...tools]) expect(span.parentSpanId).toBe(turn.spanId);
    expect(tools[0].startedAt).toBeGreaterThanOrEqual(models[0].startedAt);
    expect(spans.every((s) => s.status === "ok")).toBe(true);
    const upstream = upstreamFor(traceId);
    expect(upstream.map((r) => parseTraceparent(r.headers.traceparent)?.spanId).sort()).toEqual(
      models.map((m) => m.spanId).sort()
    );
    const page = await api.messages(room.id);
    expect(page.messages.at(-1).metadata.traceId).toBe(traceId);
  });

  it("a stopped answer closes every span as stopped (and is reported streaming until then)", async () => {
    const { api, room, ctx, socket, id } = await tracedAnswerStreaming("[[fake:chunks=400,slow=40]] go on", 3);
    // Introspection sees the answer streaming, on its model call, in this trace.
    const traceId = await onlyTrace(api, room.id);
    const agents = (await (await api.call(`/${room.id}/agents`)).json()) as AgentTree;
    expect(agents.room).toMatchObject({ status: "streaming", activity: "chat fake-model", traceId });
    socket.send({ type: "cf_agent_chat_request_cancel", id });
    const spans = await settledTrace(api, room.id, traceId);
    socket.close();
    const tree = checkTraceTree(spans, { requireClosed: true });
    expect(tree.problems).toEqual([]);
    expect(tree.root?.parentSpanId).toBe(ctx.spanId);
    const byKind = Object.fromEntries(spans.map((s) => [s.kind, s.status]));
    expect(byKind).toMatchObject({ request: "stopped", turn: "stopped", queue: "ok" });
    expect(["stopped", "ok"]).toContain(byKind.model);
  });

  it("an upstream failure records the error code on the turn", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const ctx = clientContext();
    const response = await sendTraced(api, room.id, "[[fake:status=401]] fail please", ctx);
    expect(response.status).toBe(502);
    const body = (await response.json()) as SendMessageResult;
    const traceId = await onlyTrace(api, room.id);
    expect(body.assistantMessage?.metadata?.traceId ?? traceId).toBe(traceId);
    const spans = await settledTrace(api, room.id, traceId);
    expect(checkTraceTree(spans, { requireClosed: true }).problems).toEqual([]);
    const turn = spans.find((s) => s.kind === "turn")!;
    expect(turn.status).toBe("error");
    expect(turn.errorCode).toBe("upstream:http_401");
    expect(spans.find((s) => s.kind === "model")?.errorCode).toBe("upstream:http_401");
  });
});

describe("a delegated task", () => {
  it("is listed in the agents tree while it runs, and its span nests under the delegate call", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const ctx = clientContext();
    const args = { task: "[[fake:chunks=120,slow=40]] Count slowly", excerpts: [] };
    const directive = toolDirective("delegate", args);
    const sending = sendTraced(api, room.id, `Please delegate ${directive}`, ctx);
    // While the task streams, the tree shows it under the room, on its model call, in this trace.
    const running = await waitFor(
      async () => (await (await api.call(`/${room.id}/agents`)).json()) as AgentTree,
      (tree) => tree.room.children.some((c) => c.kind === "task" && c.activity === "chat fake-model"),
      60_000
    );
    const node = running.room.children.find((c) => c.kind === "task");
    expect(node).toMatchObject({ status: "streaming", name: "[[fake:chunks=120,slow=40]] Count slowly" });
    const traceId = await onlyTrace(api, room.id);
    expect(node?.traceId).toBe(traceId);
    const response = await sending;
    expect(response.status).toBe(200);
    const answer = ((await response.json()) as any).assistantMessage;
    const output = answer.parts.find((p: any) => p.type === "tool-delegate")?.output;
    expect(output).toMatchObject({ ok: true, status: "completed", taskId: node?.id });

    const spans = await settledTrace(api, room.id, traceId);
    const tree = checkTraceTree(spans, { requireClosed: true });
    expect(tree.problems).toEqual([]);
    const turn = spans.find((s) => s.kind === "turn")!;
    const delegate = spans.find((s) => s.name === "tool delegate")!;
    expect(delegate.parentSpanId).toBe(turn.spanId);
    const task = spans.find((s) => s.kind === "agent")!;
    expect(task).toMatchObject({ parentSpanId: delegate.spanId, agent: node?.id, status: "ok" });
    const taskModel = spans.find((s) => s.kind === "model" && s.parentSpanId === task.spanId)!;
    expect(taskModel).toMatchObject({ agent: node?.id, model: "fake-model", status: "ok" });
    expect(taskModel.outputTokens).toBeGreaterThan(0);
    // The task's provider request carried its own model span's context, in the turn's trace.
    expect(upstreamFor(traceId).map((r) => parseTraceparent(r.headers.traceparent)?.spanId)).toContain(
      taskModel.spanId
    );
    // Once it is done, the tree no longer lists it.
    const after = (await (await api.call(`/${room.id}/agents`)).json()) as AgentTree;
    expect(after.room.children.filter((c) => c.kind === "task")).toEqual([]);
  }, 120_000);
});

describe("structured cross-facet errors", () => {
  async function personaRoom(prompts: Record<string, string>) {
    const api = restClient(app.url);
    const room = await api.createRoom();
    for (const [name, systemPrompt] of Object.entries(prompts)) {
      const response = await api.call(`/${room.id}/personas`, { method: "POST", json: { name, systemPrompt } });
      expect(response.status).toBe(201);
    }
    return { api, room };
  }
  const requestsWith = (marker: string) =>
    app.fake.requests.filter((r) =>
      (r.body.messages as any[]).some((m) => m.role === "system" && m.content.includes(marker))
    );

  it("a retryable persona failure is retried once, after a pause, and the retry's span follows the failed one", async () => {
    const marker = `flaky-${hex(8)}`;
    // The provider call retries itself twice; the third failure reaches the room, which tries once more.
    const { api, room } = await personaRoom({
      Ada: `${marker} [[fake:fail=3,status=503,id=${marker}]]`,
      Bob: "Steady."
    });
    const ctx = clientContext();
    const response = await sendTraced(api, room.id, "@Ada @Bob how are you", ctx);
    expect(response.status).toBe(200);
    expect(requestsWith(marker)).toHaveLength(4);
    const { messages } = await api.messages(room.id);
    const ada = messages.find((m) => m.metadata.persona?.name === "Ada");
    const bob = messages.find((m) => m.metadata.persona?.name === "Bob");
    expect(messages.filter((m) => m.metadata.persona?.name === "Ada")).toHaveLength(1);
    expect(messageText(ada)).toMatch(/^Echo: .*@Ada @Bob how are you/);
    expect(ada.metadata.error).toBeUndefined();
    expect(messageText(bob)).toContain("Echo:");

    const spans = await settledTrace(api, room.id, await onlyTrace(api, room.id));
    expect(checkTraceTree(spans, { requireClosed: true }).problems).toEqual([]);
    const failed = spans.find((s) => s.name === "agent Ada")!;
    const retry = spans.find((s) => s.name === "agent Ada (retry)")!;
    expect(failed).toMatchObject({ status: "error", errorCode: "upstream:http_503" });
    expect(retry).toMatchObject({ status: "ok", agent: failed.agent });
    expect(retry.startedAt).toBeGreaterThanOrEqual(failed.endedAt!);
    expect(spans.find((s) => s.name === "agent Bob")?.status).toBe("ok");
  }, 120_000);

  it("a retryable task failure is retried once as a new run under the same delegate call", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const ctx = clientContext();
    const marker = hex(8);
    const args = { task: `[[fake:fail=3,status=503,id=${marker}]] Sum up ${marker}`, excerpts: [] };
    const directive = toolDirective("delegate", args);
    const response = await sendTraced(api, room.id, `Please delegate ${directive}`, ctx);
    expect(response.status).toBe(200);
    const answer = ((await response.json()) as any).assistantMessage;
    const output = answer.parts.find((p: any) => p.type === "tool-delegate")?.output;
    expect(output).toMatchObject({
      ok: true,
      status: "completed",
      result: expect.stringContaining(`Sum up ${marker}`)
    });
    expect(app.fake.requests.filter((r) => r.lastUserText?.includes(`Sum up ${marker}`))).toHaveLength(4);

    const spans = await settledTrace(api, room.id, await onlyTrace(api, room.id));
    expect(checkTraceTree(spans, { requireClosed: true }).problems).toEqual([]);
    const delegate = spans.find((s) => s.name === "tool delegate")!;
    const runs = spans.filter((s) => s.kind === "agent").sort((a, b) => a.startedAt - b.startedAt);
    expect(runs.map((s) => [s.parentSpanId, s.status, s.errorCode])).toEqual([
      [delegate.spanId, "error", "upstream:http_503"],
      [delegate.spanId, "ok", null]
    ]);
    expect(runs[1].name).toMatch(/\(retry\)$/);
    expect(output.taskId).toBe(runs[1].agent);
  }, 120_000);

  it("a non-retryable persona failure is shown in place with its code, once, and its sibling still answers", async () => {
    const marker = `broken-${hex(8)}`;
    const { api, room } = await personaRoom({ Ada: `${marker} [[fake:status=401]]`, Bob: "Steady." });
    const ctx = clientContext();
    const response = await sendTraced(api, room.id, "@Ada @Bob status report", ctx);
    expect(response.status).toBe(200);
    expect(requestsWith(marker)).toHaveLength(1);
    const { messages } = await api.messages(room.id);
    const traceId = await onlyTrace(api, room.id);
    const ada = messages.find((m) => m.metadata.persona?.name === "Ada");
    expect(ada.metadata).toMatchObject({
      errorCode: "upstream:http_401",
      error: expect.stringContaining("refused our credentials"),
      traceId
    });
    const bob = messages.find((m) => m.metadata.persona?.name === "Bob");
    expect(messageText(bob)).toMatch(/^Echo: .*@Ada @Bob status report/);

    const spans = await settledTrace(api, room.id, traceId);
    expect(checkTraceTree(spans, { requireClosed: true }).problems).toEqual([]);
    expect(spans.find((s) => s.name === "agent Ada")).toMatchObject({
      status: "error",
      errorCode: "upstream:http_401"
    });
    expect(spans.some((s) => s.name === "agent Ada (retry)")).toBe(false);
    // The persona's own failed model call is in the trace too, under its span.
    const adaSpan = spans.find((s) => s.name === "agent Ada")!;
    expect(spans.find((s) => s.kind === "model" && s.parentSpanId === adaSpan.spanId)).toMatchObject({
      status: "error",
      errorCode: "upstream:http_401"
    });
  }, 120_000);
});

describe("a server killed mid-answer", () => {
  it("closes the interrupted spans on wake and the recovered answer keeps its trace", async () => {
    // Its socket goes with the server.
    const { api, room } = await tracedAnswerStreaming(
      "[[fake:slow=150]] interrupted answer with quite a few words to stream out",
      6
    );
    const traceId = await onlyTrace(api, room.id);
    await app.server.restart({ hard: true });

    const back = await openSocket(api.roomSocketUrl(room.id));
    const spans = await waitFor(
      () => trace(api, room.id, traceId),
      (s) => s.some((span) => span.name === "turn (recovered)") && s.every((span) => span.endedAt !== null),
      120_000
    );
    back.close();
    // The framework's recovery continued the answer in the same trace, and
    // told the provider so.
    const recovered = spans.find((s) => s.name === "turn (recovered)")!;
    expect(recovered.status).toBe("ok");
    const recoveredModel = spans.find((s) => s.kind === "model" && s.parentSpanId === recovered.spanId)!;
    expect(upstreamFor(traceId).map((r) => parseTraceparent(r.headers.traceparent)?.spanId)).toContain(
      recoveredModel.spanId
    );
    const tree = checkTraceTree(spans, { requireClosed: true });
    expect(tree.problems).toEqual([]);
    const first = spans.find((s) => s.name === "turn")!;
    expect(first.status).toBe("interrupted");
    expect(first.errorCode).toBe("interrupted:eviction");
    expect(tree.root?.status).toBe("interrupted");
  }, 240_000);
});
