/**
 * The gate's socket budget through the real Worker: visitors (here the
 * anonymous, each from an address of its own, so no per-person cap is what
 * stops them) fill a room only up to the places kept for its members; then
 * the next visitor is refused with 4429, while the owner, and someone who
 * has written in the room, still get in.
 */
import { describe, expect, it } from "vitest";
import { MAX_SOCKETS_PER_ROOM, ROOM_SOCKETS_KEPT_FOR_MEMBERS } from "@/shared/constants";
import { api, connect, roomPath, signIn, type TestSocket, trackedSockets, uniqueName } from "./helpers";

/** Sockets this file opens, closed after each test. */
const track = trackedSockets();

const isPresence = (f: { type?: string } | null) => f?.type === "rooms_presence";

describe("a room's sockets", () => {
  it("keep their last places for the room's members: visitors are refused there, members and writers get in", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const bea = await signIn("Bea");
    const created = await api(`/api/workspaces/${ws}/rooms`, {
      method: "POST",
      json: { name: "Busy" },
      headers: ann.headers
    });
    const room = await created.json<{ id: string }>();
    const visitors = MAX_SOCKETS_PER_ROOM - ROOM_SOCKETS_KEPT_FOR_MEMBERS;
    const admitted: TestSocket[] = [];
    for (let i = 0; i < visitors; i++) {
      const address = `198.51.${100 + (i >> 8)}.${i & 255}`;
      admitted.push(await track(connect(roomPath(ws, room.id), { "cf-connecting-ip": address })));
    }
    // Every visitor so far was let in.
    expect(admitted.every((s) => s.ws.readyState === WebSocket.OPEN)).toBe(true);

    const oneMore = await track(connect(roomPath(ws, room.id), { "cf-connecting-ip": "203.0.113.7" }));
    expect((await oneMore.closed).code).toBe(4429);
    // Bea has not written here: a visitor too.
    const beaFirst = await track(connect(roomPath(ws, room.id), bea.headers));
    expect((await beaFirst.closed).code).toBe(4429);

    // Ann, the owner, gets in; so does Bea once she has written in the room.
    const owner = await track(connect(roomPath(ws, room.id), ann.headers));
    await owner.next(isPresence, 30_000);
    const wrote = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "let me in, I work here" },
      headers: bea.headers
    });
    expect(wrote.status).toBe(200);
    const beaAgain = await track(connect(roomPath(ws, room.id), bea.headers));
    await beaAgain.next(isPresence, 30_000);
    expect(beaAgain.ws.readyState).toBe(WebSocket.OPEN);
  }, 120_000);
});
