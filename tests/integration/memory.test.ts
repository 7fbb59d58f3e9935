/**
 * A room's memory, checked where it matters: in the requests the model
 * provider receives (a local fake OpenAI server). Summaries are written by
 * the room's model with their own prompt, stand in for what left the
 * window, and are never waited for by a turn; pins reach every request, the
 * assistant's and the personas', however long the room.
 */
import { describe, expect, it } from "vitest";
import type { AnswerContext, Pin, RoomMemory } from "@/shared/memory";
import type { RestClient } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { uniqueName, waitFor } from "../support/wait";

const app = useSharedApp();

type Client = RestClient;

async function memoryOf(api: Client, roomId: string): Promise<RoomMemory> {
  return (await (await api.call(`/${roomId}/memory`)).json()) as RoomMemory;
}

async function pin(api: Client, roomId: string, body: Record<string, unknown>): Promise<Pin> {
  const response = await api.call(`/${roomId}/memory/pins`, { method: "POST", json: body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { pin: Pin }).pin;
}

/** The turn's request (not a summary's) whose question carries `marker`. */
const requestFor = (marker: string) =>
  app.fake.waitForRequest(marker, (r) => !r.summary && (r.lastUserText ?? "").includes(marker));

/** The summary request whose span holds `marker`. */
const summaryRequestOf = (marker: string, timeoutMs = 20_000) =>
  app.fake.waitForRequest(marker, (r) => r.summary === true, timeoutMs);

/** Text of every message of a request after the system message(s). */
const conversationText = (body: { messages: Array<{ role: string; content: unknown }> }) =>
  JSON.stringify(body.messages.filter((m) => m.role !== "system"));

/** About 3,000 tokens: with the 8,000-token context budget, the third such question pushes the first exchange out. */
const long = (marker: string, directive = "[[fake:text=ok]]") =>
  `${directive} ${marker}: the decision stands. ${"Details follow. ".repeat(740)}`;

describe("summaries at the provider", () => {
  it("the next request carries the summary and the pins, and not the summarised messages", async () => {
    const api = app.api;
    const room = await api.createRoom();
    await pin(api, room.id, { text: "We chose Postgres" });
    const [alpha, bravo, charlie, delta] = ["ALPHA", "BRAVO", "CHARLIE", "DELTA"].map((m) => uniqueName(m));
    for (const marker of [alpha, bravo, charlie]) {
      expect((await api.send(room.id, long(marker))).status).toBe(200);
    }
    const memory = await waitFor(
      () => memoryOf(api, room.id),
      (m) => m.summaries.length > 0,
      20_000,
      "a summary"
    );
    const [summary] = memory.summaries;

    // Written by the room's model with the summariser's prompt, over exactly the span that left the window.
    const summaryRequest = await summaryRequestOf(alpha);
    expect(summaryRequest.systemText).toMatch(/memory of a group chat room/);
    expect(summaryRequest.body.max_tokens ?? summaryRequest.body.max_completion_tokens).toBe(500);
    expect(summaryRequest.lastUserText).not.toContain(charlie);
    expect(summary.model).toBe("fake-model");
    expect(summary.text).toMatch(/^Fake summary of \d+ lines: /);
    expect(summary.text).toContain(alpha);
    const messages = (await api.messages(room.id, "?limit=200")).messages;
    expect(summary.fromMessageId).toBe(messages[0].id);

    expect((await api.send(room.id, `[[fake:text=ok]] ${delta} what did we decide?`)).status).toBe(200);
    const request = await requestFor(delta);
    const system = request.systemText ?? "";
    expect(system).toContain("We chose Postgres");
    expect(system).toContain(summary.text);
    expect(system.indexOf("We chose Postgres")).toBeLessThan(system.indexOf(summary.text));
    // The summarised messages are not in the request; the summary stands in for them.
    const conversation = conversationText(request.body);
    expect(conversation).not.toContain(alpha);
    expect(conversation).toContain(delta);

    // What the AI saw for that answer names the same summary and pin, with token counts.
    const answer = (await api.messages(room.id)).messages.at(-1);
    const seen = (await (await api.call(`/${room.id}/messages/${answer.id}/context`)).json()) as AnswerContext;
    expect(seen.record.summaries.map((s) => s.id)).toEqual([summary.id]);
    expect(seen.record.pins).toHaveLength(1);
    expect(seen.record.window.tokens).toBeGreaterThan(0);
  });

  it("a turn started while a summary is being written does not wait for it", async () => {
    const api = app.api;
    const room = await api.createRoom();
    // The summary of a span holding this directive takes 8 s at the provider; turns ignore it.
    const slow = "[[fake:text=ok,sumslow=8000]]";
    const [one, two, three, four] = ["ONE", "TWO", "THREE", "FOUR"].map((m) => uniqueName(m));
    for (const marker of [one, two, three]) {
      expect((await api.send(room.id, long(marker, slow))).status).toBe(200);
    }
    await summaryRequestOf(one);
    const started = Date.now();
    const sent = await api.send(room.id, `${slow} ${four}, a quick one`);
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe("completed");
    // The answer came back while the summary was still being written.
    expect((await memoryOf(api, room.id)).summaries).toEqual([]);
    expect(Date.now() - started).toBeLessThan(8_000);
    // And the summary arrives in its own time.
    await waitFor(
      () => memoryOf(api, room.id),
      (m) => m.summaries.length === 1,
      20_000,
      "the slow summary"
    );
  });
});

describe("pins at the provider", () => {
  it("a fact pinned from the first message of a 2,000-message room reaches the provider on a new question", async () => {
    const api = app.api;
    const roomId = await api.importRoom(2_000, (i) =>
      i === 0 ? "The launch code is AZURE-SEVEN-42." : `Message number ${i}, ordinary chat.`
    );
    // The room's first message: page back to the start (an import gives messages new ids).
    let page = await api.messages(roomId, "?limit=200");
    while (page.nextCursor) page = await api.messages(roomId, `?limit=200&before=${page.nextCursor}`);
    const first = page.messages[0];
    expect(first.parts[0].text).toContain("AZURE");
    const pinned = await pin(api, roomId, { messageId: first.id });
    expect(pinned.text).toBe("The launch code is AZURE-SEVEN-42.");

    const echo = uniqueName("ECHO");
    expect((await api.send(roomId, `[[fake:text=ok]] ${echo} what is the launch code?`)).status).toBe(200);
    const request = await requestFor(echo);
    expect(request.systemText).toContain("AZURE-SEVEN-42");
    // The first message itself is far outside the window.
    expect(conversationText(request.body)).not.toContain("AZURE-SEVEN-42");
  });

  it("personas see the same pins in their own system prompt", async () => {
    const api = app.api;
    const room = await api.createRoom();
    const created = await api.call(`/${room.id}/personas`, { method: "POST", json: { name: "Ada" } });
    expect(created.status).toBe(201);
    await pin(api, room.id, { text: "Ship date is 12 March" });
    const foxtrot = uniqueName("FOXTROT");
    expect((await api.send(room.id, `@Ada [[fake:text=ok]] ${foxtrot} when do we ship?`)).status).toBe(200);
    const request = await requestFor(foxtrot);
    expect(request.systemText).toContain("You are @Ada");
    expect(request.systemText).toContain("Ship date is 12 March");
  });
});
