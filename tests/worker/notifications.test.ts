/**
 * Mentions of people and their notifications, through the real Worker with
 * several signed-in people: who a mention reaches (people who can see the
 * room, not its author, not those who muted it), the live frame on the
 * person's own list sockets only, marking read, validation, and private
 * rooms (an outsider is never notified, and a notification of a room one
 * lost no longer shows). Deleting the room leaves nothing behind.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { OverseerAgent } from "../../src/server/agents/overseer-agent";
import type { NotificationList, RoomNotifications } from "../../src/shared/notifications";
import type { RoomDetail } from "../../src/shared/protocol";
import { api, connect, type SignedIn, signIn, type TestSocket, uniqueName, workspaceAdmin } from "./helpers";

const opened: TestSocket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) {
    try {
      socket.ws.close();
    } catch {
      // already closed
    }
  }
});

const base = (ws: string) => `/api/workspaces/${ws}`;

async function call<T>(who: SignedIn, path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const response = await api(path, { ...init, headers: who.headers });
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${await response.text()}`);
  return response.json<T>();
}

/** Someone who has used the workspace (people are recorded on their first request there). */
async function person(ws: string, name: string): Promise<SignedIn> {
  const who = await signIn(name);
  await call(who, `${base(ws)}/me`);
  return who;
}

async function room(ws: string, owner: SignedIn, body: Record<string, unknown> = {}): Promise<RoomDetail> {
  const made = await call<RoomDetail>(owner, `${base(ws)}/rooms`, { method: "POST", json: { name: "Team", ...body } });
  // Nobody answers: these tests are about people.
  await call(owner, `${base(ws)}/rooms/${made.id}`, { method: "PATCH", json: { defaultResponder: "nobody" } });
  return made;
}

async function send(ws: string, who: SignedIn, roomId: string, text: string, replyTo?: string): Promise<string> {
  const sent = await call<{ userMessage: { id: string } }>(who, `${base(ws)}/rooms/${roomId}/messages`, {
    method: "POST",
    json: { text, ...(replyTo ? { replyTo } : {}) }
  });
  return sent.userMessage.id;
}

const inbox = (ws: string, who: SignedIn) => call<NotificationList>(who, `${base(ws)}/notifications`);

function overseer(ws: string) {
  return env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
}

describe("a reply to a person's message", () => {
  it("notifies its author, once even when it names them too, and not someone replying to themselves", async () => {
    const ws = uniqueName();
    const ann = await person(ws, "Ann");
    const ben = await person(ws, "Ben");
    const r = await room(ws, ann);
    const annList = await connect(`/agents/overseer-agent/${ws}`, ann.headers);
    opened.push(annList);
    await annList.next((f) => f?.type === "read_marks");

    const question = await send(ws, ann, r.id, "Who has the slides?");
    const answer = await send(ws, ben, r.id, "I do, sending them now", question);
    const frame = await annList.next((f) => f?.type === "notifications");
    expect(frame).toMatchObject({
      unread: 1,
      added: { kind: "reply", roomId: r.id, messageId: answer, from: { id: ben.user.id, name: "Ben" } }
    });
    // Ben replying to himself tells no one; a reply that also names Ann is one notification, a mention.
    await send(ws, ben, r.id, "(the deck, that is)", answer);
    const both = await send(ws, ben, r.id, "@Ann they are in the drive", question);
    await expect
      .poll(async () => (await inbox(ws, ann)).notifications.map((n) => [n.kind, n.messageId]))
      .toEqual([
        ["mention", both],
        ["reply", answer]
      ]);
    expect(await inbox(ws, ben)).toEqual({ notifications: [], unread: 0, muted: [] });
  });
});

describe("a mention of a person", () => {
  it("notifies them, live on their own list sockets only, and not the author nor anyone else", async () => {
    const ws = uniqueName();
    const ann = await person(ws, "Ann");
    const bob = await person(ws, "Bob Smith");
    const cid = await person(ws, "Cid");
    const r = await room(ws, ann);
    const bobList = await connect(`/agents/overseer-agent/${ws}`, bob.headers);
    const cidList = await connect(`/agents/overseer-agent/${ws}`, cid.headers);
    opened.push(bobList, cidList);
    await bobList.next((f) => f?.type === "read_marks");
    await cidList.next((f) => f?.type === "read_marks");

    const messageId = await send(ws, ann, r.id, "@bob smith, can you check the numbers? cc @Ann @Nobody");
    const frame = await bobList.next((f) => f?.type === "notifications");
    expect(frame).toMatchObject({
      unread: 1,
      added: {
        kind: "mention",
        roomId: r.id,
        roomName: "Team",
        messageId,
        from: { id: ann.user.id, name: "Ann" },
        preview: "@bob smith, can you check the numbers? cc @Ann @Nobody",
        read: false
      }
    });
    const bobs = await inbox(ws, bob);
    expect(bobs.unread).toBe(1);
    expect(bobs.notifications.map((n) => n.messageId)).toEqual([messageId]);
    // The author naming herself, and people not named, get nothing.
    expect(await inbox(ws, ann)).toEqual({ notifications: [], unread: 0, muted: [] });
    expect(await inbox(ws, cid)).toEqual({ notifications: [], unread: 0, muted: [] });
    expect(cidList.frames.some((f) => f?.type === "notifications")).toBe(false);
  });

  it("marks one read, then all; every tab of theirs hears the count; bad bodies are 400", async () => {
    const ws = uniqueName();
    const ann = await person(ws, "Ann");
    const bob = await person(ws, "Bob");
    const r = await room(ws, ann);
    await send(ws, ann, r.id, "@Bob first");
    await send(ws, ann, r.id, "@Bob second");
    await send(ws, ann, r.id, "@Bob third");
    await expect.poll(async () => (await inbox(ws, bob)).unread, { timeout: 10_000 }).toBe(3);
    const [third, second] = (await inbox(ws, bob)).notifications;
    expect(third.preview).toBe("@Bob third");

    const bobList = await connect(`/agents/overseer-agent/${ws}`, bob.headers);
    opened.push(bobList);
    await bobList.next((f) => f?.type === "read_marks");
    const one = await call<NotificationList>(bob, `${base(ws)}/notifications/read`, {
      method: "POST",
      json: { ids: [second.id] }
    });
    expect(one.unread).toBe(2);
    expect(one.notifications.find((n) => n.id === second.id)?.read).toBe(true);
    expect(await bobList.next((f) => f?.type === "notifications")).toEqual({ type: "notifications", unread: 2 });
    // Someone else's ids change nothing of Bob's.
    const ann1 = await call<NotificationList>(ann, `${base(ws)}/notifications/read`, {
      method: "POST",
      json: { ids: [third.id] }
    });
    expect(ann1.unread).toBe(0);
    expect((await inbox(ws, bob)).unread).toBe(2);

    const all = await call<NotificationList>(bob, `${base(ws)}/notifications/read`, {
      method: "POST",
      json: { all: true }
    });
    expect(all.unread).toBe(0);
    expect(all.notifications.every((n) => n.read)).toBe(true);

    for (const json of [{}, { ids: [] }, { ids: ["nope"] }, { all: false }, { ids: [second.id], all: true }]) {
      const response = await api(`${base(ws)}/notifications/read`, { method: "POST", json, headers: bob.headers });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect((await response.json<{ error: { code: string } }>()).error.code).toBe("bad_request:body");
    }
  });

  it("is muted per room and per person: a muted room notifies nobody who muted it", async () => {
    const ws = uniqueName();
    const ann = await person(ws, "Ann");
    const bob = await person(ws, "Bob");
    const cid = await person(ws, "Cid");
    const r = await room(ws, ann);
    const path = `${base(ws)}/notifications/rooms/${r.id}`;
    expect(await call<RoomNotifications>(bob, path)).toEqual({ roomId: r.id, muted: false });
    expect(await call<RoomNotifications>(bob, path, { method: "PUT", json: { muted: true } })).toEqual({
      roomId: r.id,
      muted: true
    });
    expect((await inbox(ws, bob)).muted).toEqual([r.id]);
    expect(await call<RoomNotifications>(cid, path)).toEqual({ roomId: r.id, muted: false });

    await send(ws, ann, r.id, "@Bob @Cid lunch?");
    await expect.poll(async () => (await inbox(ws, cid)).unread, { timeout: 10_000 }).toBe(1);
    expect((await inbox(ws, bob)).unread).toBe(0);

    await call(bob, path, { method: "PUT", json: { muted: false } });
    await send(ws, ann, r.id, "@Bob now?");
    await expect.poll(async () => (await inbox(ws, bob)).unread, { timeout: 10_000 }).toBe(1);

    const bad = await api(path, { method: "PUT", json: { muted: "yes" }, headers: bob.headers });
    expect(bad.status).toBe(400);
    const unknown = await api(`${base(ws)}/notifications/rooms/nope`, {
      method: "PUT",
      json: { muted: true },
      headers: bob.headers
    });
    expect(unknown.status).toBe(404);
  });
});

describe("a private room's mentions", () => {
  it("never notify someone who cannot see the room, and leave an inbox when its owner loses the room", async () => {
    const ws = uniqueName();
    const ada = await workspaceAdmin(ws, "Ada");
    const olive = await person(ws, "Olive");
    const mia = await person(ws, "Mia");
    const otto = await person(ws, "Otto");
    const r = await room(ws, olive, { visibility: "private" });
    // Mia joins by invitation; Otto is an outsider.
    const invite = await call<{ token: string }>(olive, `${base(ws)}/rooms/${r.id}/invites`, {
      method: "POST",
      json: {}
    });
    await call(mia, `/api/invites/${invite.token}/accept`, { method: "POST", json: {} });

    await send(ws, olive, r.id, "@Otto @Mia @Ada secret plans");
    await expect.poll(async () => (await inbox(ws, mia)).unread, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await inbox(ws, ada)).unread, { timeout: 10_000 }).toBe(1);
    expect(await inbox(ws, otto)).toEqual({ notifications: [], unread: 0, muted: [] });
    // An outsider cannot mute, nor learn the room exists.
    const mute = await api(`${base(ws)}/notifications/rooms/${r.id}`, {
      method: "PUT",
      json: { muted: true },
      headers: otto.headers
    });
    expect(mute.status).toBe(404);
    expect((await mute.json<{ error: { code: string } }>()).error.code).toBe("not_found:room");

    // Mia is removed: the room is gone from her inbox and her count.
    const removed = await api(`${base(ws)}/rooms/${r.id}/members/${mia.user.id}`, {
      method: "DELETE",
      headers: olive.headers
    });
    expect(removed.status).toBe(204);
    expect(await inbox(ws, mia)).toEqual({ notifications: [], unread: 0, muted: [] });
  });
});

describe("deleting a room", () => {
  it("leaves no notification and no mute behind", async () => {
    const ws = uniqueName();
    const ann = await person(ws, "Ann");
    const bob = await person(ws, "Bob");
    const r = await room(ws, ann);
    await call(ann, `${base(ws)}/notifications/rooms/${r.id}`, { method: "PUT", json: { muted: true } });
    await send(ws, ann, r.id, "@Bob bye");
    await expect.poll(async () => (await inbox(ws, bob)).unread, { timeout: 10_000 }).toBe(1);
    const before = await runInDurableObject(overseer(ws), (o: OverseerAgent) => o.notificationFootprint(r.id));
    expect(before).toBe(2);
    expect((await api(`${base(ws)}/rooms/${r.id}`, { method: "DELETE", headers: ann.headers })).status).toBe(204);
    expect(await runInDurableObject(overseer(ws), (o: OverseerAgent) => o.notificationFootprint(r.id))).toBe(0);
    expect(await inbox(ws, bob)).toEqual({ notifications: [], unread: 0, muted: [] });
  });
});
