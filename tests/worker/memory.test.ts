/**
 * A room's memory through the real Worker: pins over REST, the record of
 * what each answer saw, and summaries that stand in for what left the
 * window while the messages stay as they were. The worker layer has no
 * provider, so rooms answer with the offline model and summaries are its
 * labelled extracts; what the provider receives is checked at the fake
 * provider (tests/integration/memory.test.ts).
 */
import { env, evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AnswerContext, Pin, RoomMemory } from "@/shared/memory";
import { MAX_PINS_PER_ROOM } from "@/shared/memory";
import type { SendMessageResult } from "@/shared/protocol";
import { waitFor } from "../support/wait";
import { api, createRoom, history, uniqueName } from "./helpers";

async function memoryOf(ws: string, roomId: string): Promise<RoomMemory> {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/memory`);
  expect(response.status).toBe(200);
  return response.json<RoomMemory>();
}

async function send(ws: string, roomId: string, text: string): Promise<SendMessageResult> {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages`, { method: "POST", json: { text } });
  expect(response.status).toBe(200);
  return response.json<SendMessageResult>();
}

async function contextOf(ws: string, roomId: string, messageId: string): Promise<AnswerContext> {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages/${messageId}/context`);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json<AnswerContext>();
}

function pinPath(ws: string, roomId: string, pinId = "") {
  return `/api/workspaces/${ws}/rooms/${roomId}/memory/pins${pinId ? `/${pinId}` : ""}`;
}

describe("pins", () => {
  it("any member writes a note or pins a message; the list says who pinned what; edits and deletes", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const sent = await send(ws, room.id, "Ship date is 12 March. Please remember it.");

    const note = await api(pinPath(ws, room.id), { method: "POST", json: { text: "  We chose Postgres  " } });
    expect(note.status).toBe(201);
    const { pin: notePin } = await note.json<{ pin: Pin }>();
    expect(notePin).toMatchObject({ text: "We chose Postgres", messageId: null, status: "active" });
    expect(notePin.author.name).toBeTruthy();
    expect(note.headers.get("location")).toBe(`/api/rooms/${room.id}/memory/pins/${notePin.id}`);

    const pinned = await api(pinPath(ws, room.id), { method: "POST", json: { messageId: sent.userMessage.id } });
    expect(pinned.status).toBe(201);
    const { pin: messagePin } = await pinned.json<{ pin: Pin }>();
    expect(messagePin).toMatchObject({
      text: "Ship date is 12 March. Please remember it.",
      messageId: sent.userMessage.id
    });

    expect((await memoryOf(ws, room.id)).pins.map((p) => p.text)).toEqual([
      "We chose Postgres",
      "Ship date is 12 March. Please remember it."
    ]);

    const edited = await api(pinPath(ws, room.id, notePin.id), { method: "PATCH", json: { text: "We chose SQLite" } });
    expect(edited.status).toBe(200);
    const { pin: after } = await edited.json<{ pin: Pin }>();
    expect(after).toMatchObject({
      text: "We chose SQLite",
      updatedBy: expect.objectContaining({ id: expect.any(String) })
    });
    expect(after.updatedAt).toBeGreaterThanOrEqual(notePin.updatedAt);

    expect((await api(pinPath(ws, room.id, messagePin.id), { method: "DELETE" })).status).toBe(204);
    expect((await memoryOf(ws, room.id)).pins.map((p) => p.id)).toEqual([notePin.id]);
    // The pinned message itself is untouched by pinning and unpinning.
    expect((await history(ws, room.id))[0]).toEqual(sent.userMessage);
  });

  it("refuses what it cannot keep, with clear errors, and keeps nothing of it", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const bad = [
      { json: { text: "" }, status: 400 },
      { json: { text: "x".repeat(1_001) }, status: 400 },
      { json: { text: "a", messageId: "m" }, status: 400 },
      { json: {}, status: 400 },
      { json: { messageId: "no-such-message" }, status: 404 }
    ];
    for (const { json, status } of bad) {
      const response = await api(pinPath(ws, room.id), { method: "POST", json });
      expect(response.status, JSON.stringify(json)).toBe(status);
      expect((await response.json<{ error: { code: string } }>()).error.code).toMatch(/^(bad_request|not_found):/);
    }
    expect((await api(pinPath(ws, room.id, "nope"), { method: "PATCH", json: { text: "x" } })).status).toBe(404);
    expect((await api(pinPath(ws, room.id, "nope"), { method: "DELETE" })).status).toBe(404);
    expect((await api(`/api/workspaces/${ws}/rooms/no-room/memory`)).status).toBe(404);
    expect((await memoryOf(ws, room.id)).pins).toEqual([]);

    for (let i = 0; i < MAX_PINS_PER_ROOM; i++) {
      expect((await api(pinPath(ws, room.id), { method: "POST", json: { text: `fact ${i}` } })).status).toBe(201);
    }
    const full = await api(pinPath(ws, room.id), { method: "POST", json: { text: "one too many" } });
    expect(full.status).toBe(409);
    expect((await full.json<{ error: { code: string } }>()).error.code).toBe("conflict:pin_limit");
  });
});

describe("what the AI saw", () => {
  it("records the system prompt, pins, tools and the window of every answer, with token counts, by reference", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { systemPrompt: "Answer in one line." });
    const first = await send(ws, room.id, "hello there");
    const pin = (
      await (await api(pinPath(ws, room.id), { method: "POST", json: { text: "Budget is 40k" } })).json<{ pin: Pin }>()
    ).pin;
    const second = await send(ws, room.id, "what is the budget?");

    const before = await contextOf(ws, room.id, first.assistantMessage!.id);
    expect(before.record.pins).toEqual([]);
    expect(before.record.window).toMatchObject({ fromMessageId: first.userMessage.id, messageCount: 1 });

    const seen = await contextOf(ws, room.id, second.assistantMessage!.id);
    expect(seen.speaker).toEqual({ kind: "assistant" });
    expect(seen.record.systemPrompt.tokens).toBe(Math.ceil("Answer in one line.".length / 4));
    expect(seen.pins).toEqual([{ id: pin.id, text: "Budget is 40k", tokens: expect.any(Number), changed: false }]);
    expect(seen.record.window).toMatchObject({
      fromMessageId: first.userMessage.id,
      toMessageId: second.userMessage.id,
      messageCount: 3
    });
    expect(seen.record.window.tokens).toBeGreaterThan(0);
    expect(seen.record.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["get_current_time", "search_room_history", "propose_pin", "delegate"])
    );
    const parts =
      seen.record.systemPrompt.tokens +
      seen.record.pins.reduce((s, p) => s + p.tokens, 0) +
      seen.record.tools.reduce((s, t) => s + t.tokens, 0) +
      seen.record.window.tokens;
    expect(seen.record.totalTokens).toBeGreaterThanOrEqual(parts);
    expect(seen.record.totalTokens).toBeLessThanOrEqual(seen.record.budget);
    // References, not copies: no message text is stored in the record.
    expect(JSON.stringify(seen.record)).not.toContain("what is the budget");

    // A pin edited since the answer is flagged, so nobody mistakes today's text for what the model read.
    await api(pinPath(ws, room.id, pin.id), { method: "PATCH", json: { text: "Budget is 50k" } });
    expect((await contextOf(ws, room.id, second.assistantMessage!.id)).pins[0]).toMatchObject({ changed: true });

    const question = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages/${second.userMessage.id}/context`);
    expect(question.status).toBe(404);
    expect((await question.json<{ error: { code: string } }>()).error.code).toBe("not_found:context");
  });
});

describe("personas", () => {
  it("see the same pins as the assistant, and what each persona's answer saw is recorded under its name", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const created = await api(`/api/workspaces/${ws}/rooms/${room.id}/personas`, {
      method: "POST",
      json: { name: "Ada", systemPrompt: "You are careful." }
    });
    expect(created.status).toBe(201);
    const ada = await created.json<{ id: string }>();
    const pin = (
      await (
        await api(pinPath(ws, room.id), { method: "POST", json: { text: "We chose Postgres" } })
      ).json<{ pin: Pin }>()
    ).pin;
    await send(ws, room.id, "@Ada which database?");
    const answer = (await history(ws, room.id)).at(-1);
    expect(answer.metadata.persona).toEqual({ id: ada.id, name: "Ada" });
    const seen = await contextOf(ws, room.id, answer.id);
    expect(seen.speaker).toEqual({ kind: "persona", id: ada.id, name: "Ada" });
    expect(seen.pins.map((p) => p.id)).toEqual([pin.id]);
    expect(seen.record.systemPrompt.tokens).toBe(Math.ceil("You are careful.".length / 4));
    expect(seen.record.window.messageCount).toBe(1);
  });
});

/** A room whose first exchange left the window and was summarised, with a note and a pinned message. */
async function roomWithMemory() {
  const ws = uniqueName();
  const room = await createRoom(ws);
  const long = (n: number) => `Fact ${n}: the number is ${n * 7}. ${"Details follow. ".repeat(740)}`;
  const sent: SendMessageResult[] = [];
  for (let i = 1; i <= 3; i++) sent.push(await send(ws, room.id, long(i)));
  await api(pinPath(ws, room.id), { method: "POST", json: { text: "We chose Postgres" } });
  await api(pinPath(ws, room.id), { method: "POST", json: { messageId: sent[2].userMessage.id } });
  const memory = await waitFor(
    () => memoryOf(ws, room.id),
    (m) => m.summaries.length > 0,
    20_000,
    "a summary"
  );
  return { ws, room, sent, memory, stored: await history(ws, room.id, "?limit=200") };
}

describe("export, import and fork carry the memory", () => {
  it("export → import keeps pins (authored as imported) and summaries over the new message ids", async () => {
    const { ws, room, memory, stored } = await roomWithMemory();
    const exported = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/export`)).json<Record<string, any>>();
    expect(exported.memory.pins.map((p: { text: string }) => p.text)).toEqual(memory.pins.map((p) => p.text));
    expect(exported.memory.summaries).toEqual([
      expect.objectContaining({
        fromMessageId: stored[0].id,
        toMessageId: memory.summaries[0].toMessageId,
        text: memory.summaries[0].text
      })
    ]);

    const imported = await api(`/api/workspaces/${ws}/rooms/import`, { method: "POST", json: exported });
    expect(imported.status).toBe(201);
    const copy = (await imported.json<{ rooms: Array<{ id: string }> }>()).rooms[0];
    const copyStored = await history(ws, copy.id, "?limit=200");
    const copyMemory = await memoryOf(ws, copy.id);
    expect(copyMemory.pins.map((p) => [p.text, p.author.id])).toEqual(memory.pins.map((p) => [p.text, "imported"]));
    // The pinned message's new id, not the file's.
    expect(copyMemory.pins[1].messageId).toBe(copyStored[4].id);
    const summaryEnd = stored.findIndex((m) => m.id === memory.summaries[0].toMessageId);
    expect(copyMemory.summaries).toEqual([
      expect.objectContaining({
        fromMessageId: copyStored[0].id,
        toMessageId: copyStored[summaryEnd].id,
        text: memory.summaries[0].text,
        messageCount: memory.summaries[0].messageCount
      })
    ]);
  });

  it("refuses an import whose memory names messages the file does not hold, and makes no room", async () => {
    const { ws, room } = await roomWithMemory();
    const exported = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/export`)).json<Record<string, any>>();
    exported.memory.summaries[0].toMessageId = "not-in-the-file";
    const before = (await (await api(`/api/workspaces/${ws}/rooms`)).json<{ rooms: unknown[] }>()).rooms.length;
    const refused = await api(`/api/workspaces/${ws}/rooms/import`, { method: "POST", json: exported });
    expect(refused.status).toBe(422);
    expect((await refused.json<{ error: { message: string } }>()).error.message).toMatch(/memory\.summaries\[0\]/);
    expect((await (await api(`/api/workspaces/${ws}/rooms`)).json<{ rooms: unknown[] }>()).rooms).toHaveLength(before);
  });

  it("a fork keeps the summaries of what it copied, and the pins", async () => {
    const { ws, room, memory, stored } = await roomWithMemory();
    const fork = async (messageId: string) => {
      const response = await api(`/api/workspaces/${ws}/rooms/${room.id}/fork`, {
        method: "POST",
        json: { messageId }
      });
      expect(response.status).toBe(201);
      return memoryOf(ws, (await response.json<{ id: string }>()).id);
    };
    const whole = await fork(stored.at(-1).id);
    expect(whole.summaries.map((s) => [s.fromMessageId, s.toMessageId, s.text])).toEqual(
      memory.summaries.map((s) => [s.fromMessageId, s.toMessageId, s.text])
    );
    expect(whole.pins.map((p) => p.text)).toEqual(memory.pins.map((p) => p.text));
    // Cut inside the summary's span: it does not cover what was copied, so it stays behind; the
    // pinned message was not copied, so that pin keeps its text only.
    const early = await fork(stored[0].id);
    expect(early.summaries).toEqual([]);
    expect(early.pins.map((p) => [p.text, p.messageId])).toEqual([
      ["We chose Postgres", null],
      [memory.pins[1].text, null]
    ]);
  });
});

describe("summaries instead of silent loss", () => {
  it("summarises exactly what left the window, puts it in the next context, and changes no message", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await api(pinPath(ws, room.id), { method: "POST", json: { text: "We chose Postgres" } });
    // About 3,000 tokens each (the context budget is 8,000): the third question pushes the first exchange out.
    const long = (n: number) => `Fact ${n}: the number is ${n * 7}. ${"Details follow. ".repeat(740)}`;
    const sent: SendMessageResult[] = [];
    for (let i = 1; i <= 3; i++) sent.push(await send(ws, room.id, long(i)));
    const stored = await history(ws, room.id, "?limit=200");

    const third = await contextOf(ws, room.id, sent[2].assistantMessage!.id);
    const windowStart = third.record.window.fromMessageId;
    const startsAt = stored.findIndex((m) => m.id === windowStart);
    expect(startsAt).toBeGreaterThan(0);
    expect(third.record.leftOut.messages).toBe(startsAt);

    const memory = await waitFor(
      () => memoryOf(ws, room.id),
      (m) => m.summaries.length > 0,
      20_000,
      "a summary"
    );
    expect(memory.summaries).toHaveLength(1);
    // Caught up: the panel no longer counts what the summary now covers.
    expect(memory.unsummarised).toEqual({ messageCount: 0 });
    const [summary] = memory.summaries;
    // Exactly the messages that left the window: from the first to the one before the window.
    expect(summary).toMatchObject({
      fromMessageId: stored[0].id,
      toMessageId: stored[startsAt - 1].id,
      messageCount: startsAt,
      level: 0,
      model: "extract"
    });
    expect(summary.text).toContain("Fact 1: the number is 7.");

    const fourth = await send(ws, room.id, "What was fact 1?");
    const seen = await contextOf(ws, room.id, fourth.assistantMessage!.id);
    expect(seen.record.summaries).toEqual([
      expect.objectContaining({ id: summary.id, fromMessageId: stored[0].id, toMessageId: stored[startsAt - 1].id })
    ]);
    expect(seen.summaries[0].text).toBe(summary.text);
    expect(seen.record.pins).toHaveLength(1);
    // The summarised messages are not in the window.
    const windowFrom = stored.findIndex((m) => m.id === seen.record.window.fromMessageId);
    expect(windowFrom).toBeGreaterThanOrEqual(startsAt);
    expect(seen.record.leftOut.messages).toBe(windowFrom - startsAt);

    // No message row changed: every stored message reads back exactly as before.
    const after = await history(ws, room.id, "?limit=200");
    expect(after.slice(0, stored.length)).toEqual(stored);
  });
});

describe("a room larger than its in-memory transcript", () => {
  it("summarises the history before the transcript a turn holds, even when that transcript fits the context", async () => {
    const ws = uniqueName();
    const source = await createRoom(ws);
    await send(ws, source.id, "Note 0: the code is 0.");
    const exported = await (await api(`/api/workspaces/${ws}/rooms/${source.id}/export`)).json<Record<string, any>>();
    const [question, answer] = exported.messages;
    // 1,200 short messages: the woken room holds only the newest ~64 KiB of
    // them, far under the context budget. When that tail starts with a
    // question the turn's window drops nothing at all, and what lies before
    // it was never in any window: it must be summarised all the same. Where
    // the tail starts depends on the messages' sizes, so the padding is
    // varied until a room shows that case (then the test asserts on it).
    for (let padding = 0; padding < 6; padding++) {
      const file = structuredClone(exported);
      file.messages = Array.from({ length: 1_200 }, (_, i) => ({
        ...(i % 2 === 0 ? question : answer),
        id: `m${i}`,
        parts: [{ type: "text", text: `Note ${i}: the code is ${i * 3}.${" ".repeat(padding * 7)}` }]
      }));
      const imported = await api(`/api/workspaces/${ws}/rooms/import`, { method: "POST", json: file });
      expect(imported.status, await imported.clone().text()).toBe(201);
      const room = (await imported.json<{ rooms: Array<{ id: string }> }>()).rooms[0];
      // The room wakes from storage: it loads only the newest messages.
      await evictDurableObject(env.OverseerAgent.get(env.OverseerAgent.idFromName(ws)));

      const asked = await send(ws, room.id, "What was note 1?");
      const seen = await contextOf(ws, room.id, asked.assistantMessage!.id);
      if (seen.record.leftOut.messages !== 0) continue;
      expect(seen.record.summaries).toEqual([]);

      const memory = await waitFor(
        () => memoryOf(ws, room.id),
        (m) => m.summaries.length > 0 && m.unsummarised?.messageCount === 0,
        90_000,
        "summaries of the history before the transcript"
      );
      // Oldest span first: the room's first message is covered.
      expect(memory.summaries[0].text).toContain("Note 0: the code is 0.");

      const next = await send(ws, room.id, "And note 2?");
      const after = await contextOf(ws, room.id, next.assistantMessage!.id);
      expect(after.summaries.map((s) => s.text).join("\n")).toContain("Note 0: the code is 0.");
      return;
    }
    throw new Error("no padding gave a transcript that starts with a question");
  }, 300_000);
});
