import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import { ChatRoom } from "../../src/server/index";
import { chunksOf, isResponse } from "../support/chat-protocol";
import {
  BASE,
  chatRequest,
  connect,
  createRoom,
  isDone,
  roomPath,
  signIn,
  type TestSocket,
  uniqueName
} from "./helpers";

const open: TestSocket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) socket.ws.close();
});

async function socketAt(path: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const socket = await connect(path, headers);
  open.push(socket);
  return socket;
}

const isChatMessages = (text: string) => (f: any) =>
  f?.type === "cf_agent_chat_messages" &&
  Array.isArray(f.messages) &&
  f.messages.some((m: any) => m.parts?.some((p: any) => p.text === text));

/** The frames a room-list socket is sent (OverseerFrame); anything else there is a room's frame. */
const LIST_FRAME_TYPES = new Set(["rooms", "room_upserted", "room_deleted", "read_marks", "error"]);

describe("the overseer's delivery of a room's frames", () => {
  it("sends a room's stream to every socket of that room and to no socket of another room or the room list", async () => {
    const ws = uniqueName();
    const [a, b] = [await createRoom(ws, { name: "A" }), await createRoom(ws, { name: "B" })];
    const ada = await signIn("Ada");
    const list = await socketAt(`/agents/overseer-agent/${ws}`, ada.headers);
    await list.next((f) => f?.type === "rooms");
    const sender = await socketAt(roomPath(ws, a.id), ada.headers);
    const watcher = await socketAt(roomPath(ws, a.id));
    const inB = await socketAt(roomPath(ws, b.id));
    for (const socket of [sender, watcher, inB]) await socket.next((f) => f?.type === "rooms_presence");

    const inA = chatRequest("a question for room A");
    sender.send(inA.frame);
    await sender.next(isDone(inA.id), 20_000);
    await watcher.next(isDone(inA.id), 20_000);
    const streamed = chunksOf(sender.frames, inA.id);
    expect(streamed.filter((c) => c.type === "text-delta").length).toBeGreaterThan(5);
    expect(chunksOf(watcher.frames, inA.id)).toEqual(streamed);

    // The user's message goes to the room's other sockets, never back to its
    // sender: the framework's `without`, kept by the tag route.
    await watcher.next(isChatMessages("a question for room A"), 10_000);
    expect(sender.frames.some(isChatMessages("a question for room A"))).toBe(false);

    // Room B's own turn: its frames come after anything of A's that could
    // have reached B's socket, so by its end any leak would have shown.
    const inBTurn = chatRequest("a question for room B");
    inB.send(inBTurn.frame);
    await inB.next(isDone(inBTurn.id), 20_000);
    expect(inB.frames.filter(isResponse(inA.id))).toEqual([]);
    expect(inB.frames.some(isChatMessages("a question for room A"))).toBe(false);
    for (const socket of [sender, watcher]) {
      expect(socket.frames.filter(isResponse(inBTurn.id))).toEqual([]);
      expect(socket.frames.some(isChatMessages("a question for room B"))).toBe(false);
    }
    // The list socket hears of both rooms' activity and of no room's frames.
    await list.next((f) => f?.type === "room_upserted" && f.room.id === b.id && f.room.messageCount === 2, 10_000);
    expect(list.frames.filter((f: any) => !LIST_FRAME_TYPES.has(f?.type))).toEqual([]);
    for (const socket of [sender, watcher, inB])
      expect(socket.frames.some((f) => f?.type === "room_upserted")).toBe(false);
  });

  it("tags each socket with its exact target, so the platform finds one room's sockets without the rest", async () => {
    const ws = uniqueName();
    const [a, b] = [await createRoom(ws), await createRoom(ws)];
    const list = await socketAt(`/agents/overseer-agent/${ws}`);
    await list.next((f) => f?.type === "rooms");
    for (const path of [roomPath(ws, a.id), roomPath(ws, a.id), roomPath(ws, b.id)]) {
      const socket = await socketAt(path);
      await socket.next((f) => f?.type === "rooms_presence");
    }
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    const counts = await runInDurableObject(stub, (_overseer: OverseerAgent, state) => ({
      all: state.getWebSockets().length,
      a: state.getWebSockets(`to:ChatRoom/${a.id}`).length,
      b: state.getWebSockets(`to:ChatRoom/${b.id}`).length,
      list: state.getWebSockets("list").length
    }));
    expect(counts).toEqual({ all: 4, a: 2, b: 1, list: 1 });
  });

  it("takes a socket's target from its address only, never from a header the client sent", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const forged = (id: string) => ({ "x-cf-agents-subagent-url": `${BASE}${roomPath(ws, id)}` });
    // Past the gate, a forged target would join a room or create a facet for an id no room has.
    const intoRoom = await socketAt(`/agents/overseer-agent/${ws}`, forged(room.id));
    const conjuring = await socketAt(`/agents/overseer-agent/${ws}`, forged("conjured-room-id"));
    for (const socket of [intoRoom, conjuring]) await socket.next((f) => f?.type === "rooms");
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    const seen = await runInDurableObject(stub, (overseer: OverseerAgent, state) => ({
      conjured: overseer.dynamicAgents.has(ChatRoom, "conjured-room-id"),
      inRoom: state.getWebSockets(`to:ChatRoom/${room.id}`).length,
      list: state.getWebSockets("list").length
    }));
    expect(seen).toEqual({ conjured: false, inRoom: 0, list: 2 });
    for (const socket of [intoRoom, conjuring]) {
      expect(socket.frames.filter((f) => typeof f?.type === "string" && f.type.startsWith("cf_agent_"))).toEqual([]);
    }
  });
});
