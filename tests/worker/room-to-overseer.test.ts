import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFrameBatch } from "@/server/domain/sockets/frame-batch";
import { OverseerAgent } from "@/server/index";
import { chunksOf } from "../support/chat-protocol";
import { chatRequest, connect, createRoom, isDone, roomPath, signIn, uniqueName } from "./helpers";

const deltasOf = (frames: unknown[], requestId: string) =>
  chunksOf(frames, requestId)
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta);

/** Every broadcast call a room facet made to its overseer: which room, and the frames it carried. */
const calls: { room: string | undefined; frames: unknown[] }[] = [];
type Broadcast = OverseerAgent["_cf_broadcastToSubAgent"];
let original: Broadcast;
/** Rooms that took a keep-alive ref at their overseer. */
const keptAlive: (string | undefined)[] = [];
type AcquireKeepAlive = OverseerAgent["_cf_acquireFacetKeepAlive"];
let originalAcquire: AcquireKeepAlive;

beforeAll(() => {
  originalAcquire = OverseerAgent.prototype._cf_acquireFacetKeepAlive;
  OverseerAgent.prototype._cf_acquireFacetKeepAlive = function (
    this: OverseerAgent,
    ...args: Parameters<AcquireKeepAlive>
  ) {
    keptAlive.push(args[0].at(-1)?.name);
    return originalAcquire.apply(this, args);
  };
  original = OverseerAgent.prototype._cf_broadcastToSubAgent;
  OverseerAgent.prototype._cf_broadcastToSubAgent = function (this: OverseerAgent, ...args: Parameters<Broadcast>) {
    const [ownerPath, message] = args;
    calls.push({
      room: ownerPath.at(-1)?.name,
      frames: isFrameBatch(message) ? message.frames.map((frame) => frame.message) : [message]
    });
    return original.apply(this, args);
  };
});

afterAll(() => {
  OverseerAgent.prototype._cf_broadcastToSubAgent = original;
  OverseerAgent.prototype._cf_acquireFacetKeepAlive = originalAcquire;
});

const parse = (frame: unknown) => (typeof frame === "string" ? JSON.parse(frame) : frame);

describe("a room's broadcasts to its overseer", () => {
  it("travel in batches (fewer calls than frames) and reach every socket whole and in the order written", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "batches" });
    const ada = await signIn("Ada");
    const sender = await connect(roomPath(ws, room.id), ada.headers);
    const watcher = await connect(roomPath(ws, room.id));
    await watcher.next((f) => f?.type === "rooms_presence");
    const { id, frame } = chatRequest("how do frames travel?");
    sender.send(frame);
    await sender.next(isDone(id), 20_000);
    await watcher.next(isDone(id), 20_000);

    const mine = calls.filter((call) => call.room === room.id);
    const relayed = mine.flatMap((call) => call.frames.map(parse));
    expect(mine.length).toBeGreaterThan(0);
    // One RPC per frame without batching: here a turn's bursts share calls.
    expect(mine.some((call) => call.frames.length > 1)).toBe(true);
    expect(mine.length).toBeLessThan(relayed.length);

    // The watcher saw exactly the turn's frames the room wrote, in order.
    const ofTurn = (f: unknown) => {
      const frame = f as { type?: unknown; id?: unknown } | null;
      return frame?.type === "cf_agent_use_chat_response" && frame.id === id;
    };
    const written = relayed.filter(ofTurn);
    expect(written.length).toBeGreaterThan(10);
    expect(watcher.frames.filter(ofTurn)).toEqual(written);
    expect(sender.frames.filter(ofTurn)).toEqual(written);
    sender.ws.close();
    watcher.ws.close();
  });

  it("take no keep-alive at the overseer for a turn that ends within seconds", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    const { id, frame } = chatRequest("a short turn");
    socket.send(frame);
    await socket.next(isDone(id), 20_000);
    expect(deltasOf(socket.frames, id).join("")).toContain("a short turn");
    // Without the deferral each turn takes three nested keep-alives (fiber, reply, response hook).
    expect(keptAlive.filter((name) => name === room.id)).toEqual([]);
    socket.ws.close();
  });
});
