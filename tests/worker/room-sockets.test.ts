import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import { ChatRoom } from "../../src/server/index";
import type { AnswerContext } from "../../src/shared/memory";
import type { MessagePage, SendMessageResult } from "../../src/shared/protocol";
import { chunksOf } from "../support/chat-protocol";
import {
  api,
  chatRequest,
  connect,
  createRoom,
  history,
  isDone,
  listedCount,
  messageText,
  roomPath,
  signIn,
  uniqueName
} from "./helpers";

const isChunk = (requestId: string, type: string) => (f: any) =>
  f?.type === "cf_agent_use_chat_response" &&
  f.id === requestId &&
  typeof f.body === "string" &&
  f.body.length > 0 &&
  JSON.parse(f.body).type === type;
function deltas(frames: unknown[], requestId: string): string[] {
  return chunksOf(frames, requestId)
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta);
}

describe("the overseer's room-list socket", () => {
  it("sends the room list on connect and every change live", async () => {
    const ws = uniqueName();
    const existing = await createRoom(ws, { name: "existing" });
    const socket = await connect(`/agents/overseer-agent/${ws}`);
    const first = await socket.next((f) => f?.type === "rooms");
    expect(first.rooms.map((r: any) => r.id)).toEqual([existing.id]);

    const created = await createRoom(ws, { name: "fresh" });
    const upserted = await socket.next((f) => f?.type === "room_upserted" && f.room.id === created.id);
    expect(upserted.room.name).toBe("fresh");

    await api(`/api/workspaces/${ws}/rooms/${created.id}`, { method: "PATCH", json: { name: "renamed" } });
    await socket.next((f) => f?.type === "room_upserted" && f.room.name === "renamed");

    await api(`/api/workspaces/${ws}/rooms/${created.id}`, { method: "DELETE" });
    await socket.next((f) => f?.type === "room_deleted" && f.id === created.id);
    socket.ws.close();
  });

  it("answers a frame sent to it with an error frame instead of failing", async () => {
    const socket = await connect(`/agents/overseer-agent/${uniqueName()}`);
    await socket.next((f) => f?.type === "rooms");
    socket.send({ type: "create_room", name: "sneaky" });
    const error = await socket.next((f) => f?.type === "error");
    expect(error.code).toBe("bad_request:body");
    socket.ws.close();
  });
});

describe("the /sub/ gate", () => {
  it("closes a socket to a room that was never created with 4404", async () => {
    const socket = await connect(roomPath(uniqueName(), "never-created-room"));
    expect((await socket.closed).code).toBe(4404);
  });

  it("closes a socket to a class other than ChatRoom with 4404", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(`/agents/overseer-agent/${ws}/sub/overseer-agent/${room.id}`);
    expect((await socket.closed).code).toBe(4404);
  });

  it("does not create a facet for an unknown id", async () => {
    const ws = uniqueName();
    await connect(roomPath(ws, "conjured-room-id")).then((s) => s.closed);
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    await runInDurableObject(stub, (overseer: OverseerAgent) => {
      expect(overseer.dynamicAgents.has(ChatRoom, "conjured-room-id")).toBe(false);
    });
  });

  it("closes open sockets when their room is deleted and refuses the rejoin with 4404", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    await socket.next((f) => f?.type === "rooms_presence");
    expect((await api(`/api/workspaces/${ws}/rooms/${room.id}`, { method: "DELETE" })).status).toBe(204);
    const closed = await socket.closed;
    expect(closed.code).not.toBe(1000 /* only an abnormal close makes clients rejoin */);
    const rejoin = await connect(roomPath(ws, room.id));
    expect((await rejoin.closed).code).toBe(4404);
  });
});

describe("a room's sockets", () => {
  it("streams an answer token by token to every socket in the room, not just the sender's", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "fanout" });
    const ada = await signIn("Ada");
    const sender = await connect(roomPath(ws, room.id), ada.headers);
    const watcher = await connect(roomPath(ws, room.id));
    const { id, frame } = chatRequest("what is this room?", { author: "someone else" });
    sender.send(frame);
    await sender.next(isDone(id), 20_000);
    await watcher.next(isDone(id), 20_000);
    const sent = deltas(sender.frames, id);
    const seen = deltas(watcher.frames, id);
    expect(sent.length).toBeGreaterThan(10);
    expect(seen).toEqual(sent);
    expect(seen.join("")).toContain("Offline model");
    expect(seen.join("")).toContain("fanout");

    const page = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`)).json<MessagePage>();
    expect(page.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    // The author is who opened the socket, not what the frame claimed.
    expect(page.messages[0].metadata?.author).toEqual({ id: ada.user.id, name: "Ada" });
    expect(page.messages[1].metadata).toMatchObject({ model: "rooms-offline", offline: true });
    expect(page.messages[1].metadata?.usage?.outputTokens).toBeGreaterThan(0);
    sender.ws.close();
    watcher.ws.close();
  });

  it("shows who is here and who is typing, by identity (a hello cannot rename anyone)", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const [ada, bob] = [await signIn("Ada"), await signIn("Bob")];
    const a = await connect(roomPath(ws, room.id), ada.headers);
    const b = await connect(roomPath(ws, room.id), bob.headers);
    b.send({ type: "rooms_hello", name: "Ada" });
    await a.next(
      (f) => f?.type === "rooms_presence" && f.users.length === 2 && f.users.some((u: any) => u.name === "Bob")
    );
    b.send({ type: "rooms_typing", typing: true });
    const typing = await a.next(
      (f) => f?.type === "rooms_presence" && f.users.some((u: any) => u.name === "Bob" && u.typing)
    );
    expect(typing.users).toEqual([
      { id: ada.user.id, name: "Ada", kind: "user", typing: false },
      { id: bob.user.id, name: "Bob", kind: "user", typing: true }
    ]);
    b.ws.close();
    await a.next((f) => f?.type === "rooms_presence" && f.users.length === 1 && f.users[0].name === "Ada");
    a.ws.close();
  });

  it("answers an unknown frame with an error frame and keeps serving the room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    socket.send("not json at all");
    socket.send({ type: "rooms_hello", name: 42 });
    await expect.poll(() => socket.frames.filter((f: any) => f?.type === "rooms_error").length).toBe(2);
    const { id, frame } = chatRequest("still there?");
    socket.send(frame);
    await socket.next(isDone(id), 20_000);
    expect(deltas(socket.frames, id).join("")).toContain("still there?");
    socket.ws.close();
  });

  it("stops an answer on cancel and keeps the partial answer, marked stopped", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    const { id, frame } = chatRequest("a question to interrupt");
    socket.send(frame);
    await socket.next(isChunk(id, "text-delta"), 10_000);
    socket.send({ type: "cf_agent_chat_request_cancel", id });
    await socket.next(isDone(id), 10_000);
    const streamed = deltas(socket.frames, id).join("");
    await expect
      .poll(async () => {
        const page = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`)).json<MessagePage>();
        return page.messages.at(-1)?.metadata?.stopped;
      })
      .toBe(true);
    const page = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`)).json<MessagePage>();
    const text = messageText(page.messages.at(-1));
    expect(text.length).toBeGreaterThan(0);
    // Far less than the full offline reply (~60 words) was produced.
    expect(streamed.length).toBeLessThan(300);
    socket.ws.close();
  });
});

describe("message history", () => {
  async function seed(ws: string, roomId: string, count: number) {
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    await runInDurableObject(stub, async (overseer: OverseerAgent) => {
      const room = await overseer.dynamicAgents.get(ChatRoom, roomId);
      const messages = Array.from({ length: count }, (_, i) => ({
        id: `m-${String(i).padStart(6, "0")}`,
        role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
        parts: [{ type: "text" as const, text: `message ${i}` }]
      }));
      await room.persistMessages(messages);
    });
  }

  it("pages newest first with a cursor, without gaps or repeats", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await seed(ws, room.id, 250);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const query: string = cursor ? `?limit=100&before=${cursor}` : "?limit=100";
      const page = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/messages${query}`)).json<MessagePage>();
      sizes.push(page.messages.length);
      // Oldest first within a page.
      const ids = page.messages.map((m) => m.id);
      expect(ids).toEqual([...ids].sort());
      seen.unshift(...ids);
      cursor = page.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([100, 100, 50]);
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => `m-${String(i).padStart(6, "0")}`));
  });

  it("returns an empty page for a cursor that is not in the room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await seed(ws, room.id, 3);
    const page = await (await api(`/api/workspaces/${ws}/rooms/${room.id}/messages?before=nope`)).json<MessagePage>();
    expect(page.messages).toEqual([]);
    expect(page.nextCursor).toBeNull();
  });

  it("keeps two rooms written at the same time apart", async () => {
    const ws = uniqueName();
    const [a, b] = await Promise.all([createRoom(ws, { name: "A" }), createRoom(ws, { name: "B" })]);
    const send = (id: string, text: string) =>
      api(`/api/workspaces/${ws}/rooms/${id}/messages`, { method: "POST", json: { text } });
    const responses = await Promise.all([
      send(a.id, "alpha one"),
      send(b.id, "beta one"),
      send(a.id, "alpha two"),
      send(b.id, "beta two")
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const texts = async (id: string) =>
      (await history(ws, id)).filter((m) => m.role === "user").map((m) => messageText(m));
    expect((await texts(a.id)).sort()).toEqual(["alpha one", "alpha two"]);
    expect((await texts(b.id)).sort()).toEqual(["beta one", "beta two"]);
    await expect.poll(async () => Promise.all([a.id, b.id].map((id) => listedCount(ws, id)))).toEqual([4, 4]);
  });
});

describe("what a send costs the room's other sockets", () => {
  // The room holds the transcript, so the framework is handed the new
  // message alone (domain/messages/chat-request-guard.ts): the frames it
  // sends the others carry that message, not the room's window again, and
  // nothing is lost from storage or from the window the model sees.
  it("is the new message, not the transcript, and every message stays stored and in memory", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    for (const text of ["one", "two", "three"]) {
      const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, { method: "POST", json: { text } });
      expect(sent.status).toBe(200);
    }
    const before = await history(ws, room.id);
    expect(before).toHaveLength(6);
    const sender = await connect(roomPath(ws, room.id), (await signIn("Ada")).headers);
    const viewer = await connect(roomPath(ws, room.id), (await signIn("Bo")).headers);
    await viewer.next((f) => f?.type === "rooms_presence" && f.users.length === 2);
    const seenFrom = viewer.frames.length;

    const { id, frame } = chatRequest("four");
    sender.send(frame);
    await sender.next(isDone(id), 20_000);
    const after = await history(ws, room.id);
    expect(after.map((m) => m.id).slice(0, 6)).toEqual(before.map((m) => m.id));
    expect(after.slice(6).map((m) => [m.role, m.role === "user" ? messageText(m) : "answer"])).toEqual([
      ["user", "four"],
      ["assistant", "answer"]
    ]);
    const [question, answer] = after.slice(6);
    await viewer.next((f) => f?.type === "cf_agent_chat_messages" && f.messages.some((m: any) => m.id === answer.id));
    // The frames of the send (before the answer is stored) name the question alone.
    const ofSend = viewer.frames
      .slice(seenFrom)
      .filter((f: any) => f?.type === "cf_agent_chat_messages" && !f.messages.some((m: any) => m.id === answer.id));
    expect(ofSend.length).toBeGreaterThan(0);
    for (const snapshot of ofSend) expect(snapshot.messages.map((m: any) => m.id)).toEqual([question.id]);

    // The room's in-memory window still holds all eight: the next answer's model saw them and the new question.
    const next = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "five" }
    });
    const { assistantMessage } = await next.json<SendMessageResult>();
    const seen = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages/${assistantMessage?.id}/context`);
    const { record } = await seen.json<AnswerContext>();
    expect(record.window).toMatchObject({ fromMessageId: before[0].id, messageCount: 9 });
    for (const socket of [sender, viewer]) socket.ws.close();
  });
});
