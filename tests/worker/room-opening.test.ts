/**
 * A room opened in one round trip (room/opening-frame.ts): a member's socket
 * that asks (`?page=N` on its address) gets the room's newest page with its
 * reactions, the room's state and who is here in one frame, before it sends
 * anything, so the client renders the room without a REST call beside the
 * socket. A socket that does not ask, and a share link's viewer, get none.
 */
import { describe, expect, it } from "vitest";
import type { MessagePage } from "../../src/shared/protocol";
import type { ShareLink } from "../../src/shared/shares";
import { api, connect, createRoom, roomPath, type SignedIn, signIn, trackedSockets, uniqueName } from "./helpers";

const track = trackedSockets();
const rooms = (ws: string) => `/api/workspaces/${ws}/rooms`;
const isType = (type: string) => (frame: any) => frame?.type === type;

/** A room with three exchanges (the offline model answers each) and Ann's 👍 on the last question. */
async function roomWithHistory(ann: SignedIn) {
  const ws = uniqueName();
  const room = await createRoom(ws, { name: "Opening", systemPrompt: "secret instructions" });
  let last = "";
  for (const text of ["first", "second", "third"]) {
    const sent = await api(`${rooms(ws)}/${room.id}/messages`, {
      method: "POST",
      json: { text },
      headers: ann.headers
    });
    expect(sent.status).toBe(200);
    last = (await sent.json<{ userMessage: { id: string } }>()).userMessage.id;
  }
  const reacted = await api(`${rooms(ws)}/${room.id}/messages/${last}/reactions`, {
    method: "POST",
    json: { emoji: "👍" },
    headers: ann.headers
  });
  expect(reacted.status).toBe(200);
  return { ws, room, questionId: last };
}

describe("a room's opening frame", () => {
  it("carries the newest page with its reactions, the room's state and presence, unasked by any frame", async () => {
    const ann = await signIn("Ann");
    const { ws, room, questionId } = await roomWithHistory(ann);
    const viaRest = await (
      await api(`${rooms(ws)}/${room.id}/messages?limit=4`, { headers: ann.headers })
    ).json<MessagePage>();

    const socket = await track(connect(`${roomPath(ws, room.id)}?page=4`, ann.headers));
    const opened = await socket.next(isType("rooms_opened"));

    // The same page REST gives: the newest four of six, oldest first, and where to read on.
    expect(opened.page.messages.map((m: any) => m.id)).toEqual(viaRest.messages.map((m) => m.id));
    expect(opened.page.messages).toHaveLength(4);
    expect(opened.page.nextCursor).toBe(viaRest.nextCursor);
    expect(opened.page.nextCursor).not.toBeNull();
    expect(opened.page.reactions[questionId]).toEqual([
      { emoji: "👍", by: [expect.objectContaining({ name: "Ann" })] }
    ]);
    // The state the framework syncs, and who is here (Ann herself).
    const synced = socket.frames.filter(isType("cf_agent_state")).at(-1) as any;
    expect(opened.state).toEqual(synced.state);
    expect(opened.state.settings.name).toBe("Opening");
    expect(opened.presence.map((u: any) => u.name)).toEqual(["Ann"]);
  });

  it("asks for at most the largest page, and is not sent when the socket did not ask", async () => {
    const ann = await signIn("Ann");
    const { ws, room } = await roomWithHistory(ann);

    const huge = await track(connect(`${roomPath(ws, room.id)}?page=5000`, ann.headers));
    expect((await huge.next(isType("rooms_opened"))).page.messages).toHaveLength(6);

    // The reactions greeting follows the opening frame on the same socket: once it is in, none came.
    const plain = await track(connect(roomPath(ws, room.id), ann.headers));
    await plain.next(isType("rooms_reactions"));
    expect(plain.frames.some(isType("rooms_opened"))).toBe(false);
  });

  it("is never sent to a share link's viewer, who gets no room state", async () => {
    const ann = await signIn("Ann");
    const { ws, room } = await roomWithHistory(ann);
    const made = await api(`${rooms(ws)}/${room.id}/shares`, { method: "POST", json: {}, headers: ann.headers });
    expect(made.status).toBe(201);
    const token = (await made.json<ShareLink>()).path.replace(/^\/share\//, "");

    const viewer = await track(connect(`/api/share/${token}/socket?page=4`));
    await viewer.next(isType("rooms_reactions"));
    expect(viewer.frames.some(isType("rooms_opened"))).toBe(false);
    expect(JSON.stringify(viewer.frames)).not.toContain("secret instructions");
  });
});
