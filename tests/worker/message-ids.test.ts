/**
 * A chat request names its new message by a client-chosen id, and the
 * framework stores messages by id. A client id that names any stored row
 * (an earlier version, an old answer, a message older than the room's
 * in-memory window) must be refused, never written over that row: over
 * real sockets, with the room's history and versions read back over REST.
 */
import { describe, expect, it, vi } from "vitest";
import type { MessageVersions } from "@/shared/protocol";
import {
  api,
  chatRequest,
  connect,
  createRoom,
  history,
  isDone,
  messageText,
  roomPath,
  signIn,
  type TestSocket,
  uniqueName
} from "./helpers";

vi.setConfig({ testTimeout: 90_000 });

const historyOf = (ws: string, roomId: string) => history(ws, roomId, "?limit=200");

async function versions(ws: string, roomId: string, messageId: string) {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages/${messageId}/versions`);
  expect(response.status).toBe(200);
  return response.json<MessageVersions>();
}

/** Sends a message reusing `id` and expects the refusal, an error settling the request. */
async function expectRefused(socket: TestSocket, id: string, text: string) {
  const forged = chatRequest(text, { messageId: id });
  socket.send(forged.frame);
  const refusal = await socket.next((f) => f?.type === "rooms_error");
  expect(refusal.code).toBe("conflict:message_id");
  const settled = await socket.next(isDone(forged.id));
  expect(settled.error).toBe(true);
}

async function ask(socket: TestSocket, text: string, extra: Parameters<typeof chatRequest>[1] = {}) {
  const request = chatRequest(text, extra);
  socket.send(request.frame);
  await socket.next(isDone(request.id), 30_000);
  return request;
}

describe("a chat request reusing a stored message's id", () => {
  it("is refused for an earlier version of an edited message, which stays as it was", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ann = await signIn("Ann");
    const socket = await connect(roomPath(ws, room.id), ann.headers);
    const original = await ask(socket, "the original question");
    await ask(socket, "the original question, edited", { messageId: original.message.id });
    const before = await historyOf(ws, room.id);
    expect(before.map(messageText)[0]).toBe("the original question, edited");
    const kept = await versions(ws, room.id, original.message.id);
    expect(kept.versions).toHaveLength(2);

    await expectRefused(socket, original.message.id, "REWRITTEN");

    expect(await historyOf(ws, room.id)).toEqual(before);
    expect(await versions(ws, room.id, original.message.id)).toEqual(kept);
    socket.ws.close();
  });

  it("is refused for a replaced answer's id: an answer never becomes a user message", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const ann = await signIn("Ann");
    const socket = await connect(roomPath(ws, room.id), ann.headers);
    const question = await ask(socket, "a question answered twice");
    const [, firstAnswer] = await historyOf(ws, room.id);
    const again = chatRequest("", { trigger: "regenerate-message", history: [{ ...question.message }] });
    socket.send(again.frame);
    await socket.next(isDone(again.id), 30_000);
    const before = await historyOf(ws, room.id);
    expect(before[1].id).not.toBe(firstAnswer.id);
    const kept = await versions(ws, room.id, firstAnswer.id);
    expect(kept.versions.map((v) => v.messages[0].role)).toEqual(["assistant", "assistant"]);

    await expectRefused(socket, firstAnswer.id, "I am an answer no more");

    expect(await historyOf(ws, room.id)).toEqual(before);
    expect(await versions(ws, room.id, firstAnswer.id)).toEqual(kept);
    socket.ws.close();
  });

  it("is refused for a message older than the room's in-memory window", async () => {
    const ws = uniqueName();
    // Imported: 40 messages of 6,000 characters, far more than the 64 KiB a room keeps in memory.
    const messages = Array.from({ length: 40 }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 === 0 ? "user" : "assistant",
      parts: [{ type: "text", text: `${i} ${"long ".repeat(1_200)}` }],
      metadata: { createdAt: 1_700_000_000_000 + i }
    }));
    const imported = await api(`/api/workspaces/${ws}/rooms/import`, {
      method: "POST",
      json: { format: "rooms.room-export", version: 1, room: { name: "Long" }, messages }
    });
    expect(imported.status, await imported.clone().text()).toBe(201);
    const roomId = ((await imported.json()) as { rooms: Array<{ id: string }> }).rooms[0].id;
    const before = await historyOf(ws, roomId);
    expect(before).toHaveLength(40);
    const socket = await connect(roomPath(ws, roomId), (await signIn("Ann")).headers);

    await expectRefused(socket, before[0].id, "REWRITTEN oldest question");
    await expectRefused(socket, before[1].id, "REWRITTEN oldest answer");

    expect(await historyOf(ws, roomId)).toEqual(before);
    socket.ws.close();
  });

  it("is refused while a message with that id is on its way to storage", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const annSocket = await connect(roomPath(ws, room.id), ann.headers);
    const benSocket = await connect(roomPath(ws, room.id), ben.headers);
    const first = chatRequest("Ann's question");
    const copy = chatRequest("Ben's copy under Ann's id", { messageId: first.message.id });
    annSocket.send(first.frame);
    benSocket.send(copy.frame);
    await annSocket.next(isDone(first.id), 30_000);
    await benSocket.next(isDone(copy.id), 30_000);
    const stored = await historyOf(ws, room.id);
    expect(stored.filter((m) => m.role === "user").map(messageText)).toEqual(["Ann's question"]);
    expect(stored[0].metadata.author.id).toBe(ann.user.id);
    annSocket.ws.close();
    benSocket.ws.close();
  });
});
