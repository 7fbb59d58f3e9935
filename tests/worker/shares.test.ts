/// <reference types="@cloudflare/vitest-plugin/types" />
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import app from "../../src/server/index";
import type { ErrorBody } from "../../src/shared/errors";
import type { FilePage } from "../../src/shared/files";
import type { MessagePage, RoomDetail } from "../../src/shared/protocol";
import { MAX_VIEWER_SOCKETS_PER_ROOM, type ShareLink, type ShareList } from "../../src/shared/shares";
import { fileForm } from "../support/files";
import { uploadFile } from "./file-helpers";
import {
  api,
  BASE,
  chatRequest,
  connect,
  createRoom,
  isDone,
  messageText,
  roomPath,
  type SignedIn,
  signIn,
  type TestSocket,
  trackedSockets,
  uniqueName
} from "./helpers";

const rooms = (ws: string) => `/api/workspaces/${ws}/rooms`;
/** Sockets this file opens, closed after each test. */
const track = trackedSockets();

async function share(ws: string, roomId: string, member: SignedIn, body: object = {}) {
  const response = await api(`${rooms(ws)}/${roomId}/shares`, { method: "POST", json: body, headers: member.headers });
  expect(response.status, await response.clone().text()).toBe(201);
  const link = await response.json<ShareLink>();
  return { ...link, token: link.path.replace(/^\/share\//, "") };
}

async function roomWithHistory(ws: string, member: SignedIn) {
  const room = await createRoom(ws, { name: "Shared room" });
  const sent = await api(`${rooms(ws)}/${room.id}/messages`, {
    method: "POST",
    json: { text: "hello from the team" },
    headers: member.headers
  });
  expect(sent.status).toBe(200);
  return room;
}

const errorBody = async (response: Response) => (await response.json<ErrorBody>()).error;

describe("share links over REST", () => {
  it("are created, listed with the same link, opened without a session, and revoked at once", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await roomWithHistory(ws, ann);
    const link = await share(ws, room.id, ann);
    expect(link).toMatchObject({ roomId: room.id, expiresAt: null, createdBy: { id: ann.user.id, name: "Ann" } });
    expect(link.path).toMatch(/^\/share\/[\w-]+\.[\w-]+\.[\w-]+$/);

    const listed = await (await api(`${rooms(ws)}/${room.id}/shares`, { headers: ann.headers })).json<ShareList>();
    expect(listed.shares).toEqual([
      {
        id: link.id,
        roomId: room.id,
        path: link.path,
        createdAt: link.createdAt,
        expiresAt: null,
        createdBy: link.createdBy
      }
    ]);

    const view = await api(`/api/share/${link.token}`);
    expect(view.status).toBe(200);
    expect(view.headers.get("cache-control")).toBe("no-store");
    expect(await view.json()).toEqual({ roomId: room.id, roomName: "Shared room", expiresAt: null });
    const page = await (await api(`/api/share/${link.token}/messages?limit=10`)).json<MessagePage>();
    expect(page.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messageText(page.messages[0])).toBe("hello from the team");

    expect(
      (await api(`${rooms(ws)}/${room.id}/shares/${link.id}`, { method: "DELETE", headers: ann.headers })).status
    ).toBe(204);
    const gone = await api(`/api/share/${link.token}`);
    expect(gone.status).toBe(404);
    expect((await errorBody(gone)).code).toBe("not_found:share");
    expect((await api(`/api/share/${link.token}/messages`)).status).toBe(404);
    expect((await (await api(`${rooms(ws)}/${room.id}/shares`)).json<ShareList>()).shares).toEqual([]);
    expect((await api(`${rooms(ws)}/${room.id}/shares/${link.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("show viewers authors' names under an alias per share, never their identity ids", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await roomWithHistory(ws, ann);
    const first = await share(ws, room.id, ann);
    const second = await share(ws, room.id, ann);
    const page = (token: string) => api(`/api/share/${token}/messages?limit=10`).then((r) => r.json<MessagePage>());
    const [a, again, b] = [await page(first.token), await page(first.token), await page(second.token)];
    expect(JSON.stringify([a, b])).not.toContain(ann.user.id);
    const author = a.messages[0]?.metadata?.author;
    expect(author?.name).toBe("Ann");
    expect(again.messages[0]?.metadata?.author).toEqual(author);
    expect(b.messages[0]?.metadata?.author?.id).not.toBe(author?.id);
    // Who added a file, likewise.
    await uploadFile(ws, room.id, fileForm("tide tables", "tides.txt"), ann.headers);
    const files = await api(`/api/share/${first.token}/files`).then((r) => r.json<FilePage>());
    expect(files.files.map((f) => f.author)).toEqual([author]);
  });

  it("refuse bad input with a clear 4xx", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws);
    for (const body of [{ expiresIn: 0 }, { expiresIn: "1h" }, { expiresIn: 1.5 }, { roomId: "other" }]) {
      const response = await api(`${rooms(ws)}/${room.id}/shares`, {
        method: "POST",
        json: body,
        headers: ann.headers
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await errorBody(response)).code).toBe("bad_request:body");
    }
    const unknownRoom = await api(`${rooms(ws)}/no-such-room/shares`, {
      method: "POST",
      json: {},
      headers: ann.headers
    });
    expect(unknownRoom.status).toBe(404);
    expect((await api(`${rooms(ws)}/${room.id}/shares/not-an-id`, { method: "DELETE" })).status).toBe(404);
    expect((await api(`/api/share/${room.id}/messages?limit=1000`)).status).toBe(400);
    for (const token of ["nonsense", "a.b.c", "x".repeat(2000)]) {
      expect((await api(`/api/share/${token}`)).status, token.slice(0, 10)).toBe(404);
    }
  });

  it("reach only their own room: a link edited to name another room, or revoked on another room, does nothing", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const mine = await roomWithHistory(ws, ann);
    const other = await roomWithHistory(ws, ann);
    const link = await share(ws, mine.id, ann);
    const [header, payload, signature] = link.token.split(".");
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const edited = btoa(JSON.stringify({ ...claims, room: other.id }))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    expect((await api(`/api/share/${header}.${edited}.${signature}`)).status).toBe(404);
    expect((await api(`/api/share/${header}.${edited}.${signature}/messages`)).status).toBe(404);
    // A share id is revoked only on its own room.
    expect((await api(`${rooms(ws)}/${other.id}/shares/${link.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await api(`/api/share/${link.token}`)).status).toBe(200);
    // Deleting the room ends its links.
    expect((await api(`${rooms(ws)}/${mine.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/api/share/${link.token}`)).status).toBe(404);
  });

  it("expire: opens answer 404 after expiresIn and the expiry is listed", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws);
    const link = await share(ws, room.id, ann, { expiresIn: 2 });
    expect(link.expiresAt).toBeGreaterThan(Date.now());
    expect(link.expiresAt).toBeLessThanOrEqual(Date.now() + 2_000);
    expect((await api(`/api/share/${link.token}`)).status).toBe(200);
    await vi.waitFor(async () => expect((await api(`/api/share/${link.token}`)).status).toBe(404), {
      timeout: 15_000,
      interval: 250
    });
    expect((await (await api(`${rooms(ws)}/${room.id}/shares`)).json<ShareList>()).shares).toEqual([]);
  });
});

describe("a share link's viewer socket", () => {
  it("sees the room live (others' messages and streamed answers) but no presence and no room state", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws, { systemPrompt: "secret instructions" });
    const link = await share(ws, room.id, ann);
    const viewer = await track(connect(`/api/share/${link.token}/socket`));
    const member = await track(connect(roomPath(ws, room.id), ann.headers));
    await member.next((f) => f?.type === "rooms_presence");
    const { id, frame } = chatRequest("live question");
    member.send(frame);
    await member.next(isDone(id), 20_000);
    await viewer.next(isDone(id), 20_000);
    await viewer.next(
      (f) =>
        f?.type === "cf_agent_chat_messages" && f.messages.some((m: any) => m.parts?.[0]?.text === "live question"),
      20_000
    );
    expect(viewer.frames.some((f: any) => f?.type === "cf_agent_use_chat_response" && f.id === id && f.body)).toBe(
      true
    );
    expect(viewer.frames.some((f: any) => f?.type === "rooms_presence")).toBe(false);
    expect(viewer.frames.some((f: any) => f?.type === "cf_agent_state")).toBe(false);
    // (The offline model repeats the system prompt in its answer, which is transcript; settings themselves never go.)
    expect(JSON.stringify(viewer.frames)).not.toContain("systemPrompt");
    // Nor is the viewer listed to members.
    const latest = member.frames.filter((f: any) => f?.type === "rooms_presence").at(-1) as any;
    expect(latest.users.map((u: any) => u.name)).toEqual(["Ann"]);
  });

  it("names people by the link's alias in every frame, never by identity id, while members see ids", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws, { name: "Live aliases" });
    const link = await share(ws, room.id, ann);
    const viewer = await track(connect(`/api/share/${link.token}/socket`));
    const member = await track(connect(roomPath(ws, room.id), ann.headers));
    await member.next((f) => f?.type === "rooms_presence");
    const { id, frame } = chatRequest("who asked this?");
    member.send(frame);
    await viewer.next(isDone(id), 20_000);
    const question = await viewer.next(
      (f) => f?.type === "cf_agent_chat_messages" && f.messages.some((m: any) => m.metadata?.author?.name === "Ann"),
      20_000
    );
    const asked = question.messages.find((m: any) => m.metadata?.author?.name === "Ann");
    const reacted = await api(`${rooms(ws)}/${room.id}/messages/${asked.id}/reactions`, {
      method: "POST",
      json: { emoji: "👍" },
      headers: ann.headers
    });
    expect(reacted.status).toBe(200);
    const reaction = await viewer.next((f) => f?.type === "rooms_reactions", 20_000);
    // A viewer who arrives later is greeted with the reactions so far.
    const late = await track(connect(`/api/share/${link.token}/socket`));
    const greeting = await late.next((f) => f?.type === "rooms_reactions", 20_000);

    const alias = asked.metadata.author.id;
    expect(alias).toMatch(/^viewer-alias:/);
    expect(reaction.reactions[asked.id][0].by[0]).toEqual({ id: alias, name: "Ann" });
    expect(greeting.reactions[asked.id][0].by[0]).toEqual({ id: alias, name: "Ann" });
    // The same alias as the link's REST pages.
    const page = await api(`/api/share/${link.token}/messages?limit=10`).then((r) => r.json<MessagePage>());
    expect(page.messages.find((m) => m.id === asked.id)?.metadata?.author?.id).toBe(alias);
    // Nowhere in any frame a viewer got, streamed chunks (JSON inside JSON) included.
    expect(JSON.stringify([...viewer.frames, ...late.frames])).not.toContain(ann.user.id);
    // Members are told who is who.
    expect(JSON.stringify(member.frames)).toContain(ann.user.id);
  });

  it("is refused every write: sends, stops, typing, state, RPC, clearing; the room is unchanged", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await roomWithHistory(ws, ann);
    const link = await share(ws, room.id, ann);
    const viewer = await track(connect(`/api/share/${link.token}/socket`));
    const ask = chatRequest("viewer question");
    const writes = [
      ask.frame,
      { type: "cf_agent_chat_request_cancel", id: "x" },
      { type: "rooms_typing", typing: true },
      { type: "rooms_hello" },
      { type: "cf_agent_state", state: { settings: { name: "hacked" } } },
      { type: "rpc", id: "r1", method: "updateSettings", args: [{ name: "hacked" }] },
      { type: "cf_agent_chat_clear" },
      { type: "cf_agent_chat_messages", messages: [] },
      "not json"
    ];
    for (const write of writes) viewer.send(write);
    await vi.waitFor(
      () => expect(viewer.frames.filter((f: any) => f?.type === "rooms_error").length).toBe(writes.length),
      { timeout: 15_000 }
    );
    for (const error of viewer.frames.filter((f: any) => f?.type === "rooms_error") as any[]) {
      expect(error.code).toBe("forbidden:read_only");
    }
    expect(viewer.frames.some((f: any) => f?.type === "cf_agent_use_chat_response" && f.id === ask.id && f.error)).toBe(
      true
    );
    const page = await (await api(`${rooms(ws)}/${room.id}/messages`)).json<MessagePage>();
    expect(page.messages).toHaveLength(2);
    const detail = await (await api(`${rooms(ws)}/${room.id}`)).json<RoomDetail>();
    expect(detail.name).toBe("Shared room");
  });

  it("is closed with 4404 when its link is revoked, while members stay connected; reopening is refused", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws);
    const revoked = await share(ws, room.id, ann);
    const kept = await share(ws, room.id, ann);
    const viewer = await track(connect(`/api/share/${revoked.token}/socket`));
    const otherViewer = await track(connect(`/api/share/${kept.token}/socket`));
    const member = await track(connect(roomPath(ws, room.id), ann.headers));
    await member.next((f) => f?.type === "rooms_presence");
    expect((await api(`${rooms(ws)}/${room.id}/shares/${revoked.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await viewer.closed).code).toBe(4404);
    const again = await api(`/api/share/${revoked.token}/socket`, { headers: { Upgrade: "websocket" } });
    expect(again.status).toBe(404);
    // The other link's viewer and the member are untouched.
    const { id, frame } = chatRequest("still here");
    member.send(frame);
    await otherViewer.next(isDone(id), 20_000);
  });

  it("takes at most half a room's sockets, so members always get in", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws);
    const link = await share(ws, room.id, ann);
    const viewers: TestSocket[] = [];
    for (let i = 0; i < MAX_VIEWER_SOCKETS_PER_ROOM; i++) {
      // Many addresses, so the per-person cap is not what stops them.
      viewers.push(await track(connect(`/api/share/${link.token}/socket`, { "cf-connecting-ip": `198.51.100.${i}` })));
    }
    const oneTooMany = await track(connect(`/api/share/${link.token}/socket`, { "cf-connecting-ip": "203.0.113.1" }));
    const refused = await oneTooMany.closed;
    expect(refused.code).toBe(4429);
    expect(refused.reason).toContain("viewers");
    const member = await track(connect(roomPath(ws, room.id), ann.headers));
    await member.next((f) => f?.type === "rooms_presence");
    expect([...viewers, member].filter((s) => s.ws.readyState === WebSocket.OPEN).length).toBe(
      MAX_VIEWER_SOCKETS_PER_ROOM + 1
    );
    // A hundred sockets, each arrival announced to those already in: 5 s on
    // an idle machine, 25 s and once over 30 s beside the browser layer.
  }, 90_000);

  it("is closed when its link expires", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await createRoom(ws);
    // Long enough to connect before it expires on a loaded machine (2 s was not, once).
    const link = await share(ws, room.id, ann, { expiresIn: 6 });
    const viewer = await track(connect(`/api/share/${link.token}/socket`));
    // A socket the room never closes fails this test at its timeout.
    expect((await viewer.closed).code).toBe(4404);
  }, 30_000);
});

describe("share links on a server with an access token", () => {
  const guardedEnv = { ...env, ACCESS_TOKEN: "correct horse battery staple" };
  async function call(path: string, init: RequestInit = {}) {
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request(`${BASE}${path}`, init), guardedEnv, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  }

  it("open without a session, while every other route, room and socket still needs one", async () => {
    const ws = uniqueName();
    const ann = await signIn("Ann");
    const room = await roomWithHistory(ws, ann);
    const other = await createRoom(ws);
    const link = await share(ws, room.id, ann);
    expect((await call(`/api/share/${link.token}`)).status).toBe(200);
    expect((await call(`/api/share/${link.token}/messages`)).status).toBe(200);
    const socket = await call(`/api/share/${link.token}/socket`, { headers: { Upgrade: "websocket" } });
    expect(socket.status).toBe(101);
    socket.webSocket?.accept();
    socket.webSocket?.close(1000, "done");
    for (const path of [
      "/api/rooms",
      `${rooms(ws)}`,
      `${rooms(ws)}/${other.id}/messages`,
      `${rooms(ws)}/${room.id}/shares`,
      "/api/search?q=hello",
      `/api/workspaces/${ws}/export`
    ]) {
      expect((await call(path)).status, path).toBe(401);
    }
    const create = await call(`${rooms(ws)}/${room.id}/shares`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}"
    });
    expect(create.status).toBe(401);
    const roomSocket = await call(roomPath(ws, other.id), { headers: { Upgrade: "websocket" } });
    expect(roomSocket.status).toBe(401);
    const listSocket = await call(`/agents/overseer-agent/${ws}`, { headers: { Upgrade: "websocket" } });
    expect(listSocket.status).toBe(401);
  });
});
