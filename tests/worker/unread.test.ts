import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import {
  api,
  chatRequest,
  connect,
  createRoom,
  history,
  listedCount,
  roomPath,
  type SignedIn,
  signIn,
  type TestSocket,
  uniqueName
} from "./helpers";

const listPath = (ws: string) => `/agents/overseer-agent/${ws}`;

/** Every socket a test opens, closed after it whatever happened. */
const opened: TestSocket[] = [];
async function open(path: string, who: SignedIn): Promise<TestSocket> {
  const socket = await connect(path, who.headers);
  opened.push(socket);
  return socket;
}
afterEach(() => {
  for (const socket of opened.splice(0)) {
    try {
      socket.ws.close();
    } catch {
      // already closed (an eviction closes them)
    }
  }
});

const historyOf = (ws: string, id: string) => history(ws, id, "?limit=100");

/** A room where nobody answers, holding `texts` written by `who`, with the registry's count caught up. */
async function roomWith(ws: string, who: SignedIn, texts: string[]) {
  const room = await createRoom(ws, { name: "Unread" });
  const patched = await api(`/api/workspaces/${ws}/rooms/${room.id}`, {
    method: "PATCH",
    json: { defaultResponder: "nobody" }
  });
  expect(patched.status).toBe(200);
  for (const text of texts) {
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      headers: who.headers,
      json: { text }
    });
    expect(sent.status).toBe(200);
  }
  await expect.poll(() => listedCount(ws, room.id), { timeout: 10_000 }).toBe(texts.length);
  return room;
}

const marksFor = (roomId: string) => (f: any) =>
  f?.type === "read_marks" && f.marks.some((m: any) => m.roomId === roomId);
const markIn = (frame: any, roomId: string) => frame.marks.find((m: any) => m.roomId === roomId);

describe("unread counts (read marks per identity, kept by the overseer)", () => {
  it("sends each person their own marks on connect: none for a room they never read", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    await roomWith(ws, ann, ["one"]);
    const list = await open(listPath(ws), ann);
    const initial = await list.next((f) => f?.type === "read_marks");
    expect(initial).toEqual({ type: "read_marks", marks: [], replace: true });
  });

  it("Ann reading moves only Ann's mark, on every one of her tabs; Ben's stays where it was", async () => {
    const ws = uniqueName();
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const room = await roomWith(ws, ben, ["one", "two", "three", "four"]);
    const annTab1 = await open(listPath(ws), ann);
    const annTab2 = await open(listPath(ws), ann);
    const benList = await open(listPath(ws), ben);
    for (const list of [annTab1, annTab2, benList]) await list.next((f) => f?.type === "read_marks" && f.replace);

    const messages = await historyOf(ws, room.id);
    const annRoom = await open(roomPath(ws, room.id), ann);
    // Ann's screen shows up to the second message: two stay unread.
    annRoom.send({ type: "rooms_read", messageId: messages[1].id });
    for (const tab of [annTab1, annTab2]) {
      const frame = await tab.next(marksFor(room.id));
      expect(frame.replace).toBe(false);
      expect(markIn(frame, room.id)).toEqual({ roomId: room.id, count: 2, messageId: messages[1].id });
    }
    // Then the newest.
    annRoom.send({ type: "rooms_read", messageId: messages[3].id });
    for (const tab of [annTab1, annTab2]) {
      await tab.next((f) => marksFor(room.id)(f) && markIn(f, room.id).count === 4);
    }

    // Ben was sent nothing about Ann's reading, and a fresh connection of his holds no mark.
    expect(benList.frames.filter(marksFor(room.id))).toEqual([]);
    const benAgain = await open(listPath(ws), ben);
    expect(await benAgain.next((f) => f?.type === "read_marks")).toEqual({
      type: "read_marks",
      marks: [],
      replace: true
    });
  });

  it("takes positions only from the room: claims, unknown ids and stale reports cannot move a mark anywhere impossible", async () => {
    const ws = uniqueName();
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const room = await roomWith(ws, ben, ["one", "two", "three"]);
    const annList = await open(listPath(ws), ann);
    await annList.next((f) => f?.type === "read_marks" && f.replace);
    const annRoom = await open(roomPath(ws, room.id), ann);
    const messages = await historyOf(ws, room.id);

    // A position, someone else's identity or an oversized id is refused by the schema.
    const refusals = () =>
      annRoom.frames.filter((f: any) => f?.type === "rooms_error" && f.code === "bad_request:body");
    const bad = [
      { type: "rooms_read", count: 1_000_000 },
      { type: "rooms_read", messageId: messages[0].id, identityId: ben.user.id },
      { type: "rooms_read", messageId: "x".repeat(500) }
    ];
    for (const frame of bad) annRoom.send(frame);
    await expect.poll(() => refusals().length, { timeout: 10_000 }).toBe(bad.length);

    // An id the room does not hold means "I see everything stored": the room's own count, never more.
    annRoom.send({ type: "rooms_read", messageId: "no-such-message" });
    const frame = await annList.next(marksFor(room.id));
    expect(markIn(frame, room.id)).toEqual({ roomId: room.id, count: 3, messageId: messages[2].id });

    // An older tab's report of an earlier message does not move the mark back, and tells no one.
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    await runInDurableObject(stub, (overseer: OverseerAgent) =>
      overseer.recordReads(room.id, [{ identityId: ann.user.id, count: 1, messageId: messages[0].id }])
    );
    const again = await open(listPath(ws), ann);
    const stored = await again.next((f) => f?.type === "read_marks" && f.replace);
    expect(markIn(stored, room.id)).toEqual({ roomId: room.id, count: 3, messageId: messages[2].id });
    expect(annList.frames.filter(marksFor(room.id))).toHaveLength(1);
  });

  it("keeps marks through reconnects and an overseer restart, and forgets them with the room", async () => {
    const ws = uniqueName();
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const room = await roomWith(ws, ben, ["one", "two"]);
    const annList = await open(listPath(ws), ann);
    await annList.next((f) => f?.type === "read_marks" && f.replace);
    const annRoom = await open(roomPath(ws, room.id), ann);
    annRoom.send({ type: "rooms_read" });
    await annList.next((f) => marksFor(room.id)(f) && markIn(f, room.id).count === 2);

    // Ben writes more: Ann's mark stays, so her unread count is the difference.
    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      headers: ben.headers,
      json: { text: "three" }
    });
    expect(sent.status).toBe(200);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 10_000 }).toBe(3);

    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    await evictDurableObject(stub, { webSockets: "close" });

    const annAfter = await open(listPath(ws), ann);
    const rooms = await annAfter.next((f) => f?.type === "rooms");
    expect(rooms.rooms.find((r: any) => r.id === room.id).messageCount).toBe(3);
    const marks = await annAfter.next((f) => f?.type === "read_marks" && f.replace);
    expect(markIn(marks, room.id).count).toBe(2);
    const benAfter = await open(listPath(ws), ben);
    expect((await benAfter.next((f) => f?.type === "read_marks" && f.replace)).marks).toEqual([]);

    expect((await api(`/api/workspaces/${ws}/rooms/${room.id}`, { method: "DELETE" })).status).toBe(204);
    const annLater = await open(listPath(ws), ann);
    expect((await annLater.next((f) => f?.type === "read_marks" && f.replace)).marks).toEqual([]);
  });
});

describe("read marks after an edit", () => {
  it("come back to the shortened path, so the new version counts as unread", async () => {
    const ws = uniqueName();
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const room = await roomWith(ws, ben, ["one", "two", "three", "four"]);
    const messages = await historyOf(ws, room.id);
    const annList = await open(listPath(ws), ann);
    await annList.next((f) => f?.type === "read_marks" && f.replace);
    const annRoom = await open(roomPath(ws, room.id), ann);
    annRoom.send({ type: "rooms_read", messageId: messages[3].id });
    await annList.next((f) => marksFor(room.id)(f) && markIn(f, room.id).count === 4);

    // Ben edits his second message: the path is now "one", "two, edited".
    const benRoom = await open(roomPath(ws, room.id), ben);
    const edit = chatRequest("two, edited", { history: [messages[0]], messageId: messages[1].id });
    benRoom.send(edit.frame);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 15_000 }).toBe(2);
    const clamped = await annList.next((f) => marksFor(room.id)(f) && markIn(f, room.id).count === 1, 15_000);
    expect(markIn(clamped, room.id).count).toBe(1);
  });
});
