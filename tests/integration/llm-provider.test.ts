import { describe, expect, it } from "vitest";
import { MAX_TOOL_STEPS } from "@/server/domain/turns/room-tools";
import type { AgentTree } from "@/shared/introspection";
import type { RoomDetail } from "@/shared/protocol";
import { chatRequest, chunksOf, isDone, isResponse, messageText, textOf } from "../support/chat-protocol";
import { restClient, signIn } from "../support/rest-client";
import { openSocket } from "../support/socket";
import { useTestApp } from "../support/test-app";
import { waitFor } from "../support/wait";

// The real provider path: @ai-sdk/openai inside workerd talks HTTP to a local
// OpenAI-compatible server that speaks the Chat Completions streaming format.
const IDLE_TIMEOUT_MS = 1_500;
const CONTEXT_TOKEN_BUDGET = 400;

const app = useTestApp({
  vars: { MODEL_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), CONTEXT_TOKEN_BUDGET: String(CONTEXT_TOKEN_BUDGET) }
});

const requestsFor = (marker: string) => app.fake.requests.filter((r) => r.lastUserText?.includes(marker));

async function ask(
  socket: Awaited<ReturnType<typeof openSocket>>,
  text: string,
  opts: Parameters<typeof chatRequest>[1] = {}
) {
  const request = chatRequest(text, opts);
  socket.send(request.frame);
  await socket.next(isDone(request.id), 30_000);
  return request;
}

describe("answers from an OpenAI-compatible provider", () => {
  it("streams the provider's answer and sends the room's system prompt, model and temperature", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom({ systemPrompt: "You are SYS-MARKER.", model: "room-model", temperature: 0.25 });
    const socket = await openSocket(api.roomSocketUrl(room.id));
    // Paced far wider than the 16 ms coalescing window, so the answer arrives
    // in several frames even on a busy machine (which may still merge some).
    const { id } = await ask(socket, "[[fake:slow=150]] hello provider");

    const deltas = chunksOf(socket.frames, id).filter((c) => c.type === "text-delta");
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(textOf(socket.frames, id)).toBe("Echo: hello provider");

    const [request] = requestsFor("hello provider");
    expect(request.headers.authorization).toBe("Bearer test-key-not-secret");
    expect(request.body).toMatchObject({ model: "room-model", temperature: 0.25, stream: true });
    expect(request.body.messages[0]).toEqual({ role: "system", content: "You are SYS-MARKER." });
    // The room assistant's tools, delegation and pin proposals included (docs/tools.md, docs/memory.md).
    expect(request.body.tools.map((t: any) => t.function.name).sort()).toEqual([
      "delegate",
      "get_current_time",
      "propose_pin",
      "search_room_history"
    ]);

    const history = await api.messages(room.id);
    const answer = history.messages.at(-1);
    expect(answer.metadata).toMatchObject({ model: "room-model", offline: false });
    expect(answer.metadata.usage.inputTokens).toBeGreaterThan(0);
    expect(answer.metadata.usage.outputTokens).toBeGreaterThan(0);

    const detail = (await (await api.call(`/${room.id}`)).json()) as RoomDetail;
    expect(detail.usage).toEqual(answer.metadata.usage);
    expect(detail.activeModel).toBe("room-model");
    socket.close();
  });

  it("runs a tool call and shows it as a message part", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const socket = await openSocket(api.roomSocketUrl(room.id));
    await ask(socket, "what time is it? [[fake:tool=get_current_time]]");
    const history = await api.messages(room.id);
    const answer = history.messages.at(-1);
    const toolPart = answer.parts.find((p: any) => p.type === "tool-get_current_time");
    expect(toolPart).toMatchObject({ state: "output-available" });
    expect(toolPart.output.iso).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(messageText(answer)).toContain("Tool said:");
    expect(requestsFor("what time is it")).toHaveLength(2);
    socket.close();
  });

  it("stops a model that keeps calling tools after the step limit", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const result = await api.send(room.id, "loop forever [[fake:tool=get_current_time,loop]]");
    expect(result.status).toBe(200);
    expect(requestsFor("loop forever")).toHaveLength(MAX_TOOL_STEPS);
    const toolParts = result.body.assistantMessage.parts.filter((p: any) => p.type === "tool-get_current_time");
    expect(toolParts).toHaveLength(MAX_TOOL_STEPS);
  });

  it("sends only the recent history that fits the context budget", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    for (let i = 0; i < 8; i++) {
      const { status } = await api.send(room.id, `filler ${i} ${"lorem ipsum ".repeat(40)}`);
      expect(status).toBe(200);
    }
    await api.send(room.id, "the final question");
    const [last] = requestsFor("the final question");
    const userTexts = last.body.messages
      .filter((m: any) => m.role === "user")
      .map((m: any) => JSON.stringify(m.content));
    expect(userTexts.at(-1)).toContain("the final question");
    const chars = last.body.messages.reduce((sum: number, m: any) => sum + JSON.stringify(m.content).length, 0);
    // 18 messages are stored; only what fits ~400 tokens (~1,600 chars) is sent.
    expect(last.body.messages.length).toBeLessThan(8);
    expect(chars).toBeLessThan(CONTEXT_TOKEN_BUDGET * 4 + 400);
    expect((await api.messages(room.id)).messages).toHaveLength(18);
  });

  it("answers two users sending at once in order, keeping both messages", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const a = await openSocket(api.roomSocketUrl(room.id), (await signIn(app.url, "A")).headers);
    const b = await openSocket(api.roomSocketUrl(room.id), (await signIn(app.url, "B")).headers);
    const first = chatRequest("[[fake:slow=20]] from A");
    const second = chatRequest("[[fake:slow=20]] from B");
    a.send(first.frame);
    b.send(second.frame);
    await a.next(isDone(first.id), 30_000);
    await b.next(isDone(second.id), 30_000);
    const history = await waitFor(
      () => api.messages(room.id),
      (h) => h.messages.length === 4 && h.messages.every((m: any) => m.role === "user" || messageText(m).length > 0)
    );
    // Both messages are stored in arrival order as soon as they arrive; the
    // answers follow one at a time, each to its own question.
    const users = history.messages.filter((m: any) => m.role === "user");
    const answers = history.messages.filter((m: any) => m.role === "assistant");
    // Two sockets racing: either may arrive first. Both are kept, and the
    // answers come in the order the questions arrived, one each.
    const authors = users.map((m: any) => m.metadata.author.name);
    expect([...authors].sort()).toEqual(["A", "B"]);
    expect(answers.map(messageText)).toEqual(authors.map((author: string) => `Echo: from ${author}`));
    expect(history.messages[0].role).toBe("user");
    expect(history.messages.at(-1).role).toBe("assistant");
    a.close();
    b.close();
  });
});

describe("stop, resume, regenerate, edit", () => {
  it("stops an answer: the provider request is aborted and the partial answer is kept, marked stopped", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const socket = await openSocket(api.roomSocketUrl(room.id));
    const { id, frame } = chatRequest("[[fake:slow=100]] a long story please, with many many words in it");
    socket.send(frame);
    await socket.next((f) => isResponse(id)(f) && typeof f.body === "string" && f.body.includes("text-delta"));
    const upstream = await app.fake.waitForRequest((r) => r.lastUserText?.includes("a long story") ?? false);
    socket.send({ type: "cf_agent_chat_request_cancel", id });
    await app.fake.waitForClientClose(upstream.id, 10_000);
    const history = await waitFor(
      () => api.messages(room.id),
      (h) => h.messages.at(-1)?.metadata?.stopped === true
    );
    const partial = messageText(history.messages.at(-1));
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan("Echo: a long story please, with many many words in it".length);
    socket.close();
  });

  it("lets anyone in the room stop an answer, not just its sender", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const sender = await openSocket(api.roomSocketUrl(room.id));
    const other = await openSocket(api.roomSocketUrl(room.id));
    const { id, frame } = chatRequest("[[fake:slow=100]] stop me from the other tab, there are many words here");
    sender.send(frame);
    // The other socket learns the request id from the broadcast stream.
    const seen = await other.next(
      (f) => f.type === "cf_agent_use_chat_response" && typeof f.body === "string" && f.body.includes("text-delta")
    );
    const upstream = await app.fake.waitForRequest(
      (r) => r.lastUserText?.includes("stop me from the other tab") ?? false
    );
    other.send({ type: "cf_agent_chat_request_cancel", id: seen.id });
    await app.fake.waitForClientClose(upstream.id, 10_000);
    await sender.next(isDone(id), 10_000);
    await waitFor(
      () => api.messages(room.id),
      (h) => h.messages.at(-1)?.metadata?.stopped === true
    );
    sender.close();
    other.close();
  });

  it("resumes a stream for a client that connects mid-answer: the answer so far, then the rest live", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const sender = await openSocket(api.roomSocketUrl(room.id));
    // Paced so the answer (10 chunks) is still streaming when the late client joins on a busy machine.
    const { id, frame } = chatRequest("[[fake:slow=200]] resume me after a reconnect please");
    sender.send(frame);
    // Part of the answer is out (so there is something to replay) and more is still to come.
    const isDelta = (f: any) => isResponse(id)(f) && typeof f.body === "string" && f.body.includes("text-delta");
    await waitFor(
      async () => sender.frames.filter(isDelta).length,
      (deltas) => deltas >= 2,
      20_000,
      "two streamed deltas"
    );

    const late = await openSocket(api.roomSocketUrl(room.id));
    const resuming = await late.next((f) => f.type === "cf_agent_stream_resuming");
    late.send({ type: "cf_agent_stream_resume_ack", id: resuming.id });
    await late.next(isDone(resuming.id), 30_000);
    await sender.next(isDone(id), 30_000);

    const replayed = late.frames.filter((f) => isResponse(resuming.id)(f) && f.replay === true);
    const live = late.frames.filter(
      (f) => isResponse(resuming.id)(f) && !f.replay && typeof f.body === "string" && f.body.length > 0
    );
    expect(replayed.length).toBeGreaterThan(0);
    expect(live.length).toBeGreaterThan(0);
    expect(textOf(late.frames, resuming.id)).toBe(textOf(sender.frames, id));
    expect(textOf(late.frames, resuming.id)).toBe("Echo: resume me after a reconnect please");
    sender.close();
    late.close();
  });

  it("regenerates the last answer in place", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const socket = await openSocket(api.roomSocketUrl(room.id));
    await ask(socket, "regenerate this");
    const before = (await api.messages(room.id)).messages;
    expect(before).toHaveLength(2);
    await ask(socket, "", { trigger: "regenerate-message", history: [before[0]] });
    const after = (await api.messages(room.id)).messages;
    expect(after).toHaveLength(2);
    expect(after[0].id).toBe(before[0].id);
    expect(after[1].id).not.toBe(before[1].id);
    expect(messageText(after[1])).toBe("Echo: regenerate this");
    expect(requestsFor("regenerate this")).toHaveLength(2);
    socket.close();
  });

  it("edits and resends a user message, replacing everything after it", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const socket = await openSocket(api.roomSocketUrl(room.id));
    await ask(socket, "first question");
    const [u1, a1] = (await api.messages(room.id)).messages;
    await ask(socket, "second question", { history: [u1, a1] });
    const before = (await api.messages(room.id)).messages;
    expect(before).toHaveLength(4);

    // Edit the second question as useChat does: the prefix, then the edited
    // message under its own id.
    await ask(socket, "second question, edited", { history: [u1, a1], messageId: before[2].id });
    const after = (await api.messages(room.id)).messages;
    expect(after.map(messageText)).toEqual([
      "first question",
      "Echo: first question",
      "second question, edited",
      "Echo: second question, edited"
    ]);
    socket.close();
  });
});

describe("provider failures", () => {
  async function failingTurn(directive: string) {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const socket = await openSocket(api.roomSocketUrl(room.id));
    const text = `please fail ${directive}`;
    const { id } = await ask(socket, text);
    const errorFrame = socket.frames.find((f) => isResponse(id)(f) && f.error === true);
    const history = await waitFor(
      () => api.messages(room.id),
      (h) => h.messages.length === 2 && Boolean(h.messages[1].metadata?.error)
    );
    // The room is still usable afterwards.
    const next = await ask(socket, "are you still there?");
    expect(textOf(socket.frames, next.id)).toBe("Echo: are you still there?");
    socket.close();
    return { errorFrame, user: history.messages[0], answer: history.messages[1], text };
  }

  it("ends the answer with a clear error on 401 and keeps the user's message, without retrying", async () => {
    const { errorFrame, user, answer, text } = await failingTurn("[[fake:status=401]]");
    expect(errorFrame?.body).toMatch(/refused our credentials \(HTTP 401\)/);
    expect(answer.metadata.error).toMatch(/HTTP 401/);
    expect(messageText(user)).toBe(text);
    expect(requestsFor("please fail")).toHaveLength(1);
    expect(JSON.stringify(answer)).not.toContain("test-key-not-secret");
  });

  it("retries 429 with backoff and answers when the provider recovers", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const result = await api.send(room.id, "busy provider [[fake:fail=2,status=429]]");
    expect(result.body.status).toBe("completed");
    expect(messageText(result.body.assistantMessage)).toBe("Echo: busy provider");
    expect(requestsFor("busy provider").map((r) => r.status)).toEqual([429, 429, 200]);
  });

  it("gives up on a failing provider after a bounded number of retries", async () => {
    const { answer } = await failingTurn("[[fake:status=500]]");
    expect(answer.metadata.error).toMatch(/HTTP 500.*tried 3 times/);
    expect(requestsFor("please fail")).toHaveLength(3);
  });

  it("ends an answer whose provider hangs once the idle timeout passes", async () => {
    const started = Date.now();
    const { answer } = await failingTurn("[[fake:hang]]");
    expect(answer.metadata.error).toMatch(/stopped responding/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS);
    const [hung] = requestsFor("please fail");
    expect(hung.closedByClient).toBe(true);
  });

  it("ends an answer whose provider never even sends headers", async () => {
    const { answer } = await failingTurn("[[fake:hang=noheaders]]");
    expect(answer.metadata.error).toMatch(/stopped responding \(HTTP 504\) \(tried 3 times\)/);
    expect(requestsFor("please fail")).toHaveLength(3);
  });

  it("keeps the partial answer and explains when the stream is cut mid-answer", async () => {
    const { answer } = await failingTurn("[[fake:cut=3]]");
    expect(answer.metadata.error).toMatch(/lost mid-answer/);
    expect(messageText(answer).length).toBeGreaterThan(0);
  });

  it("explains a malformed stream", async () => {
    const { answer } = await failingTurn("[[fake:malformed]]");
    expect(answer.metadata.error).toMatch(/could not read/);
  });
});

describe("deleting a room mid-answer", () => {
  it("aborts the answer, closes every socket, fails the in-flight REST send with 404, and leaves nothing reachable", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom();
    const list = await openSocket(api.listSocketUrl());
    await list.next((f) => f.type === "rooms");
    const streaming = await openSocket(api.roomSocketUrl(room.id));
    const watching = await openSocket(api.roomSocketUrl(room.id));
    // Long enough (200 chunks, 100 ms apart) that only the delete ends it.
    const { id, frame } = chatRequest("[[fake:chunks=200,slow=100]] a long answer that will be cut off by a delete");
    streaming.send(frame);
    await streaming.next((f) => isResponse(id)(f) && typeof f.body === "string" && f.body.includes("text-delta"));
    const upstream = await app.fake.waitForRequest((r) => r.lastUserText?.includes("cut off by a delete") ?? false);
    // A REST send queued behind the streaming answer: the room reports it
    // waiting before the delete, so the 404 below is the in-flight send's.
    const restSend = api.send(room.id, "[[fake:slow=100]] queued over REST");
    await waitFor(
      async () => ((await (await api.call(`/${room.id}/agents`)).json()) as AgentTree).room.activity,
      (activity) => activity?.endsWith("(1 queued)") ?? false,
      30_000,
      "the REST send queued behind the answer"
    );
    expect((await api.call(`/${room.id}`, { method: "DELETE" })).status).toBe(204);

    const [closedA, closedB] = await Promise.all([streaming.closed, watching.closed]);
    expect(closedA.code).not.toBe(1000);
    expect(closedB.code).not.toBe(1000);
    await app.fake.waitForClientClose(upstream.id, 10_000);
    const rest = await restSend;
    expect(rest.status).toBe(404);
    expect(rest.body.error.code).toBe("not_found:room");
    await list.next((f) => f.type === "room_deleted" && f.id === room.id);

    expect((await api.call(`/${room.id}`)).status).toBe(404);
    expect((await api.call(`/${room.id}/messages`)).status).toBe(404);
    const rejoin = await openSocket(api.roomSocketUrl(room.id));
    expect((await rejoin.closed).code).toBe(4404);
    list.close();
  });
});

describe("logs", () => {
  it("never hold message text or prompts, even when the provider fails or the request is bad", async () => {
    const api = restClient(app.url);
    const room = await api.createRoom({ systemPrompt: "SYSTEM-PROMPT-MARKER-7f3a" });
    const socket = await openSocket(api.roomSocketUrl(room.id));
    const markers = ["USER-TEXT-MARKER-91c2", "USER-TEXT-MARKER-5d0e"];
    // A provider error (the AI SDK's error holds the whole prompt) and a retryable one.
    await ask(socket, `${markers[0]} [[fake:status=401]]`);
    await ask(socket, `${markers[1]} [[fake:status=500]]`);
    // A REST body that is not JSON, quoting the text.
    await api.call(`/${room.id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"text": "BODY-MARKER-aa11`
    });
    expect(requestsFor(markers[0]).length).toBeGreaterThan(0);
    await waitFor(
      async () => app.server.output(),
      (log) => /\[model\] request failed/.test(log)
    );
    const log = app.server.output();
    for (const marker of [...markers, "SYSTEM-PROMPT-MARKER-7f3a", "BODY-MARKER-aa11"]) {
      expect(log, marker).not.toContain(marker);
    }
    socket.close();
  });
});
