/**
 * Replies through the real Worker: a REST send or a socket send may name a
 * message of its room as the one it replies to. The room keeps its own
 * quote of that message with the reply, and the model reads it; an id that
 * names no stored message of this room (another room's, a made-up one, a
 * deleted one) is refused with 400 `bad_request:reply_to`, and nothing is
 * stored.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatRoom } from "../../src/server/index";
import type { ErrorBody } from "../../src/shared/errors";
import { outboxRequestFrame } from "../../src/shared/outbox";
import type { ChatMessage, SendMessageResult } from "../../src/shared/protocol";
import {
  api,
  connect,
  createRoom,
  history,
  isDone,
  messageText,
  roomPath,
  type SignedIn,
  signIn,
  type TestSocket,
  uniqueName
} from "./helpers";

const messages = (ws: string, roomId: string) => `/api/workspaces/${ws}/rooms/${roomId}/messages`;
const open: TestSocket[] = [];

afterEach(() => {
  vi.restoreAllMocks();
  for (const socket of open.splice(0)) {
    try {
      socket.ws.close(1000, "test over");
    } catch {
      // already closed
    }
  }
});

function send(ws: string, roomId: string, as: SignedIn, body: Record<string, unknown>, stream = false) {
  return api(messages(ws, roomId), {
    method: "POST",
    json: body,
    headers: { ...as.headers, ...(stream ? { Accept: "text/event-stream" } : {}) }
  });
}

/** A room in a fresh workspace where Ann asked something (and the room answered). */
async function roomWithQuestion() {
  const ws = uniqueName();
  const [ann, bob] = [await signIn("Ann"), await signIn("Bob")];
  const room = await createRoom(ws);
  const sent = await send(ws, room.id, ann, { text: "Shall we\nship on Friday?" });
  expect(sent.status).toBe(200);
  const { userMessage } = await sent.json<SendMessageResult>();
  return { ws, ann, bob, room, question: userMessage };
}

/** The chat request frame of a socket send whose message carries `metadata`. */
function chatRequestWith(text: string, metadata: Record<string, unknown>) {
  const id = crypto.randomUUID();
  const message = { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }], metadata };
  const body = JSON.stringify({ messages: [message], trigger: "submit-message" });
  return { id, message, frame: { type: "cf_agent_use_chat_request", id, init: { method: "POST", body } } };
}

/** What REST refuses a reply with, and proof the room stored nothing. */
async function expectRefused(response: Response, ws: string, roomId: string, before: ChatMessage[]) {
  expect(response.status).toBe(400);
  expect((await response.json<ErrorBody>()).error.code).toBe("bad_request:reply_to");
  expect(await history(ws, roomId)).toEqual(before);
}

/** Deletes a stored message as a room's storage would (nothing in the app deletes messages; a test may). */
async function deleteMessage(ws: string, roomId: string, messageId: string) {
  // The room runs in this isolate: the versions route calls in, and the spy deletes from the room's own storage.
  vi.spyOn(ChatRoom.prototype, "messageVersions").mockImplementation(async function (this: ChatRoom, id: string) {
    await this.sessions.session().deleteMessages([id]);
    return { ok: true, value: { messageId: id, parentId: null, versions: [] } };
  });
  expect((await api(`${messages(ws, roomId)}/${messageId}/versions`)).status).toBe(200);
  vi.restoreAllMocks();
}

describe("a reply over REST", () => {
  it("stores the room's quote of the message it replies to, and the model reads it", async () => {
    const { ws, bob, room, question } = await roomWithQuestion();
    const sent = await send(ws, room.id, bob, { text: "Yes, after the review.", replyTo: question.id });
    expect(sent.status).toBe(200);
    const result = await sent.json<SendMessageResult>();
    const quote = { id: question.id, name: "Ann", text: "Shall we ship on Friday?" };
    expect(result.userMessage.metadata).toMatchObject({ author: { name: "Bob" }, replyTo: quote });
    const stored = (await history(ws, room.id)).find((m) => m.id === result.userMessage.id);
    expect(stored?.metadata?.replyTo).toEqual(quote);
    // The offline model answers with the question as it read it: the quote first.
    expect(messageText(result.assistantMessage)).toContain("in reply to Ann");
  });

  it("may reply to an answer, quoted as the room labels it", async () => {
    const { ws, bob, room } = await roomWithQuestion();
    const answer = (await history(ws, room.id)).find((m) => m.role === "assistant");
    const sent = await send(ws, room.id, bob, { text: "Thanks", replyTo: answer.id });
    expect(sent.status).toBe(200);
    expect((await sent.json<SendMessageResult>()).userMessage.metadata?.replyTo).toMatchObject({
      id: answer.id,
      name: "Assistant"
    });
  });

  it("is refused for another room's message, a made-up id or a deleted message, storing nothing", async () => {
    const { ws, ann, bob, room, question } = await roomWithQuestion();
    const other = await createRoom(ws);
    const elsewhere = await send(ws, other.id, ann, { text: "In the other room" });
    const foreign = (await elsewhere.json<SendMessageResult>()).userMessage.id;
    const before = await history(ws, room.id);

    await expectRefused(await send(ws, room.id, bob, { text: "Reply", replyTo: foreign }), ws, room.id, before);
    await expectRefused(
      await send(ws, room.id, bob, { text: "Reply", replyTo: "no-such-message" }),
      ws,
      room.id,
      before
    );
    // Streamed sends are refused the same way, before any event.
    await expectRefused(await send(ws, room.id, bob, { text: "Reply", replyTo: foreign }, true), ws, room.id, before);

    await deleteMessage(ws, room.id, question.id);
    const left = await history(ws, room.id);
    expect(left.some((m) => m.id === question.id)).toBe(false);
    await expectRefused(await send(ws, room.id, bob, { text: "Reply", replyTo: question.id }), ws, room.id, left);
  });

  it("refuses a replyTo that is not an id as a bad body", async () => {
    const { ws, bob, room } = await roomWithQuestion();
    for (const replyTo of ["", 42, { id: "x", name: "Ann", text: "forged" }]) {
      const response = await send(ws, room.id, bob, { text: "Reply", replyTo });
      expect(response.status, JSON.stringify(replyTo)).toBe(400);
      expect((await response.json<ErrorBody>()).error.code).toBe("bad_request:body");
    }
  });
});

describe("a reply over the room socket", () => {
  it("stores the room's quote, whatever quote the client sent", async () => {
    const { ws, bob, room, question } = await roomWithQuestion();
    const socket = await connect(roomPath(ws, room.id), bob.headers);
    open.push(socket);
    const request = chatRequestWith("Yes, after the review.", { replyTo: question.id, author: "Mallory" });
    socket.send(request.frame);
    const done = await socket.next(isDone(request.id), 30_000);
    expect(done.error).toBeFalsy();
    const stored = (await history(ws, room.id)).find((m) => m.id === request.message.id);
    expect(stored?.metadata).toMatchObject({
      author: { name: "Bob" },
      replyTo: { id: question.id, name: "Ann", text: "Shall we ship on Friday?" }
    });
  });

  it("goes out from the browser's outbox as an id, and is acknowledged and stored with the room's quote", async () => {
    const { ws, bob, room, question } = await roomWithQuestion();
    const socket = await connect(roomPath(ws, room.id), bob.headers);
    open.push(socket);
    const item = {
      id: crypto.randomUUID(),
      text: "Friday it is",
      createdAt: Date.now(),
      replyTo: { id: question.id, name: "Ann", text: "what the browser showed" }
    };
    socket.send(outboxRequestFrame(crypto.randomUUID(), item));
    const ack = await socket.next((f) => f?.type === "rooms_ack" && f.clientMessageId === item.id);
    expect(ack.duplicate).toBe(false);
    const stored = (await history(ws, room.id)).find((m) => m.id === item.id);
    expect(stored?.metadata?.replyTo).toEqual({ id: question.id, name: "Ann", text: "Shall we ship on Friday?" });
  });

  it("is refused for another room's message, a made-up id or a deleted message, storing nothing", async () => {
    const { ws, ann, bob, room, question } = await roomWithQuestion();
    const other = await createRoom(ws);
    const elsewhere = await send(ws, other.id, ann, { text: "In the other room" });
    const foreign = (await elsewhere.json<SendMessageResult>()).userMessage.id;
    const socket = await connect(roomPath(ws, room.id), bob.headers);
    open.push(socket);
    const before = await history(ws, room.id);

    const refused = async (replyTo: unknown, expected: ChatMessage[]) => {
      const request = chatRequestWith("Reply", { replyTo });
      const from = socket.frames.length;
      socket.send(request.frame);
      expect((await socket.next(isDone(request.id))).error).toBe(true);
      const refusal = await socket.next((f) => f?.type === "rooms_error" && socket.frames.indexOf(f) >= from);
      expect(refusal.code).toBe("bad_request:reply_to");
      expect(await history(ws, room.id)).toEqual(expected);
    };
    await refused(foreign, before);
    await refused("no-such-message", before);
    await refused("", before);

    await deleteMessage(ws, room.id, question.id);
    await refused(question.id, await history(ws, room.id));
  });
});
