/**
 * Private rooms with three people (an admin, the room's owner, an outsider)
 * through the real Worker: for the outsider the room does not exist on any
 * route (walked from Hono's own route table, so a route added later is
 * walked too), its socket is refused like an unknown room's, and no list,
 * search, status count, unread mark or workspace export mentions it.
 */
import { describe, expect, it } from "vitest";
import app from "@/server/index";
import type { MemberList } from "@/shared/members";
import type { RoomDetail } from "@/shared/protocol";
import { waitFor } from "../support/wait";
import {
  api,
  connect,
  createRoom,
  listedCount,
  roomPath,
  type SignedIn,
  signIn,
  type TestSocket,
  uniqueName,
  workspaceAdmin
} from "./helpers";

const rooms = (ws: string) => `/api/workspaces/${ws}/rooms`;

function as(person: SignedIn, init: { method?: string; json?: unknown } = {}) {
  return { ...init, headers: person.headers };
}

async function createAs(person: SignedIn, ws: string, body: Record<string, unknown>): Promise<RoomDetail> {
  const response = await api(rooms(ws), as(person, { method: "POST", json: body }));
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json<RoomDetail>();
}

async function sendAs(person: SignedIn, ws: string, roomId: string, text: string) {
  const response = await api(`${rooms(ws)}/${roomId}/messages`, as(person, { method: "POST", json: { text } }));
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json<{ userMessage: { id: string } }>();
}

async function socketAs(person: SignedIn, ws: string, roomId?: string): Promise<TestSocket> {
  const path = roomId ? roomPath(ws, roomId) : `/agents/overseer-agent/${ws}`;
  return connect(path, { cookie: person.cookie });
}

/** The error code of a refusal. */
async function codeOf(response: Response): Promise<string | undefined> {
  return (await response.json<{ error?: { code: string } }>()).error?.code;
}

/** What a refused upgrade looks like: accepted, then closed with 4000 + the gate's status. */
async function closeCode(socket: TestSocket): Promise<number> {
  return (await socket.closed).code;
}

/**
 * Every route under a room, from the app's route table, filled in for one
 * room, with a body each would accept: so a refusal is about the room, not
 * a malformed request.
 */
function roomRoutes(ws: string, roomId: string, ids: { messageId: string; userId: string; traceId: string }) {
  const upload = () => {
    const form = new FormData();
    form.append("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
    return form;
  };
  // A valid request for every write route: a refusal must be about the room,
  // not a malformed body. A new write route under a room gets a line here.
  const bodies: Record<string, () => { json?: unknown; body?: BodyInit }> = {
    "POST /messages": () => ({ json: { text: "let me in" } }),
    "PATCH ": () => ({ json: { name: "Taken over" } }),
    "POST /fork": () => ({ json: { messageId: ids.messageId } }),
    "POST /personas": () => ({ json: { name: "Spy", systemPrompt: "listen" } }),
    "PATCH /personas/:personaId": () => ({ json: { name: "Spy" } }),
    "POST /shares": () => ({ json: {} }),
    "POST /invites": () => ({ json: {} }),
    "POST /owner": () => ({ json: { userId: ids.userId } }),
    "POST /members": () => ({ json: { userId: ids.userId } }),
    "POST /files": () => ({ body: upload() }),
    "POST /memory/pins": () => ({ json: { text: "remember me" } }),
    "PATCH /memory/pins/:pinId": () => ({ json: { text: "changed" } }),
    "POST /memory/summaries/rebuild": () => ({ json: {} }),
    "POST /messages/:messageId/reactions": () => ({ json: { emoji: "👍" } }),
    "POST /messages/:messageId/withdraw": () => ({ json: {} }),
    "POST /asides": () => ({ json: { text: "what is going on?" } }),
    "POST /asides/:asideId/share": () => ({ json: {} }),
    "POST /catch-up": () => ({ json: {} }),
    "POST /mcp": () => ({ json: { name: "Spy", url: "https://mcp.example.com/mcp" } }),
    "POST /mcp/:serverId/reconnect": () => ({ json: {} }),
    "PATCH /mcp/:serverId/tools/:tool": () => ({ json: { policy: "allowed" } }),
    "POST /approvals/:toolCallId": () => ({ json: { approved: true } })
  };
  const seen = new Set<string>();
  const walked: Array<{ method: string; path: string; body: () => { json?: unknown; body?: BodyInit }; key: string }> =
    [];
  const prefix = "/api/workspaces/:workspace/rooms/:id";
  for (const route of app.routes) {
    if (!route.path.startsWith(prefix) || route.path.endsWith("*") || route.method === "ALL") continue;
    const tail = route.path.slice(prefix.length);
    const key = `${route.method} ${tail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const write = route.method !== "GET" && route.method !== "DELETE";
    if (write && !bodies[key]) throw new Error(`give ${key} a valid body in roomRoutes' bodies`);
    const path =
      `${rooms(ws)}/${roomId}` +
      tail
        .replace(":traceId", ids.traceId)
        .replace(":messageId", ids.messageId)
        .replace(":personaId", "p_00000000-0000-0000-0000-000000000000")
        .replace(":shareId", `sh_${crypto.randomUUID()}`)
        .replace(":inviteId", `in_${crypto.randomUUID()}`)
        .replace(":fileId", "f_0123456789abcdef")
        .replace(":pinId", `pin_${crypto.randomUUID()}`)
        .replace(":asideId", `as_${crypto.randomUUID()}`)
        .replace(":userId", ids.userId);
    walked.push({ method: route.method, path, body: bodies[key] ?? (() => ({})), key });
  }
  return walked;
}

describe("a private room, for someone who is not in it", () => {
  it("does not exist on any room route, nor on its socket: the unknown room's own answers", async () => {
    const ws = uniqueName();
    await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const outsider = await signIn("Otto");
    const room = await createAs(owner, ws, { name: "Secret plans", visibility: "private" });
    expect(room.visibility).toBe("private");
    expect(room.access).toMatchObject({ role: "owner", visibility: "private" });
    const sent = await sendAs(owner, ws, room.id, "the plan is in the drawer");
    const traces = await (await api(`${rooms(ws)}/${room.id}/traces`, as(owner))).json<{
      traces: { traceId: string }[];
    }>();
    const ids = {
      messageId: sent.userMessage.id,
      userId: owner.user.id,
      traceId: traces.traces[0]?.traceId ?? "0".repeat(32)
    };
    const unknown = "nosuchroom000000";

    const routes = roomRoutes(ws, room.id, ids);
    // Messages, history, export, fork, traces, agents, personas, shares, members, invites, owner, versions…
    expect(routes.length).toBeGreaterThanOrEqual(25);
    for (const { method, path, body: request, key } of routes) {
      const response = await api(path, { method, ...request(), headers: outsider.headers });
      const control = await api(path.replace(room.id, unknown), { method, ...request(), headers: outsider.headers });
      const body = await response.json<{ error?: { code: string; message: string } }>();
      const controlBody = await control.json<{ error?: { code: string; message: string } }>();
      expect(response.status, key).toBe(404);
      expect(control.status, key).toBe(404);
      expect(body.error?.code, key).toBe("not_found:room");
      // Word for word the unknown room's answer, the id aside.
      expect(body.error?.message.replace(room.id, "<id>"), key).toBe(
        controlBody.error?.message.replace(unknown, "<id>")
      );
    }

    // The socket: refused with the code an unknown room gets.
    const refused = await socketAs(outsider, ws, room.id);
    const unknownSocket = await socketAs(outsider, ws, unknown);
    expect(await closeCode(refused)).toBe(4404);
    expect(await closeCode(unknownSocket)).toBe(4404);

    // Nothing changed for the owner: the outsider's writes did nothing.
    const after = await (await api(`${rooms(ws)}/${room.id}`, as(owner))).json<RoomDetail>();
    expect(after.name).toBe("Secret plans");
    expect((await api(`${rooms(ws)}/${room.id}/personas`, as(owner))).status).toBe(200);
  });

  it("is in no list, search, status count, read mark or export of the workspace, live or not", async () => {
    const ws = uniqueName();
    const admin = await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const outsider = await signIn("Otto");
    const word = `quokka${crypto.randomUUID().slice(0, 8)}`;
    const open = await createAs(owner, ws, { name: "Lobby" });
    const outsiderList = await socketAs(outsider, ws);
    await outsiderList.next((f) => f.type === "rooms");
    const ownerList = await socketAs(owner, ws);
    await ownerList.next((f) => f.type === "rooms");

    const secret = await createAs(owner, ws, { name: `Hidden ${word}`, visibility: "private" });
    await sendAs(owner, ws, secret.id, `the ${word} is hidden here`);
    await sendAs(owner, ws, open.id, "hello lobby");
    // The owner's list hears of the private room's activity...
    await ownerList.next((f) => f.type === "room_upserted" && f.room.id === secret.id && f.room.messageCount >= 2);
    await ownerList.next((f) => f.type === "room_upserted" && f.room.id === open.id && f.room.messageCount >= 2);
    // ...while the outsider's, which got the lobby's frames, never heard a word of it.
    await outsiderList.next((f) => f.type === "room_upserted" && f.room.id === open.id && f.room.messageCount >= 2);
    const heard = JSON.stringify(outsiderList.frames);
    expect(heard).not.toContain(secret.id);
    expect(heard).not.toContain(word);
    expect(outsiderList.frames.find((f) => f.type === "rooms")?.rooms.map((r: { id: string }) => r.id)).toEqual([
      open.id
    ]);

    // REST list.
    const listed = async (person: SignedIn) =>
      (await (await api(rooms(ws), as(person))).json<{ rooms: { id: string; visibility: string }[] }>()).rooms;
    expect((await listed(outsider)).map((r) => r.id)).toEqual([open.id]);
    expect((await listed(owner)).map((r) => r.id).sort()).toEqual([open.id, secret.id].sort());
    expect((await listed(admin)).find((r) => r.id === secret.id)?.visibility).toBe("private");

    // Search: the owner finds the word; the outsider finds nothing, and asking for the room is the unknown room's 404.
    const search = (person: SignedIn, query: string) => api(`/api/workspaces/${ws}/search?${query}`, as(person));
    const found = await waitFor(
      async () => (await search(owner, `q=${word}`)).json<{ results: { roomId: string }[] }>(),
      (r) => r.results.length > 0
    );
    expect(found.results[0].roomId).toBe(secret.id);
    const outsiderSearch = await (await search(outsider, `q=${word}`)).json<{
      results: unknown[];
      roomsSearched: number;
    }>();
    expect(outsiderSearch.results).toEqual([]);
    expect(JSON.stringify(outsiderSearch)).not.toContain(secret.id);
    const oneRoom = await search(outsider, `q=${word}&room=${secret.id}`);
    expect(oneRoom.status).toBe(404);

    // Status counts the rooms each may see.
    const status = async (person: SignedIn) =>
      (await api(`/api/workspaces/${ws}/status`, as(person))).json<{ rooms: number }>();
    await waitFor(
      () => listedCount(ws, open.id),
      (n) => n === 2
    );
    const outsiderStatus = await status(outsider);
    expect(outsiderStatus.rooms).toBe(1);
    expect(JSON.stringify(outsiderStatus)).not.toContain(secret.id);
    expect((await status(owner)).rooms).toBe(2);
    expect((await status(admin)).rooms).toBe(2);

    // Read marks: the outsider's list socket, opened afresh, holds none for it.
    const again = await socketAs(outsider, ws);
    const marks = await again.next((f) => f.type === "read_marks");
    expect(JSON.stringify(marks)).not.toContain(secret.id);

    // The workspace export: only what each may see.
    const exported = async (person: SignedIn) => (await api(`/api/workspaces/${ws}/export`, as(person))).text();
    const outsiderExport = await exported(outsider);
    expect(outsiderExport).toContain("hello lobby");
    expect(outsiderExport).not.toContain(word);
    expect(outsiderExport).not.toContain(secret.id);
    expect(await exported(owner)).toContain(word);

    for (const socket of [outsiderList, ownerList, again]) socket.ws.close();
  });

  it("admins see and manage it; its owner gets it back when an admin lets them in", async () => {
    const ws = uniqueName();
    const admin = await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const room = await createAs(owner, ws, { name: "Board", visibility: "private" });
    const detail = await (await api(`${rooms(ws)}/${room.id}`, as(admin))).json<RoomDetail>();
    expect(detail.access).toMatchObject({ role: null, workspaceRole: "admin" });
    expect(detail.access?.may).toContain("room.delete");
    const socket = await socketAs(admin, ws, room.id);
    // An accepted socket hears the room (a refused one would close with 4404 first).
    await socket.next((f) => f.type === "cf_agent_chat_messages" || f.type === "rooms_presence");
    socket.ws.close();
    const renamed = await api(
      `${rooms(ws)}/${room.id}`,
      as(admin, { method: "PATCH", json: { name: "Board (admins)" } })
    );
    expect(renamed.status).toBe(200);
  });
});

describe("members and invitations", () => {
  it("an invitation lets someone in; removing them closes their socket within a second and the room is gone for them again", async () => {
    const ws = uniqueName();
    await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const guest = await signIn("Gus");
    const late = await signIn("Lou");
    const room = await createAs(owner, ws, { name: "Project", visibility: "private" });

    const created = await api(`${rooms(ws)}/${room.id}/invites`, as(owner, { method: "POST", json: { maxUses: 1 } }));
    expect(created.status).toBe(201);
    const invite = await created.json<{ token: string; url: string; path: string; uses: number; maxUses: number }>();
    expect(invite.url).toMatch(/^http:\/\/rooms\.test\/invite\//);
    expect(invite.path).toBe(`/invite/${invite.token}`);
    expect(invite).toMatchObject({ uses: 0, maxUses: 1 });

    const view = await api(`/api/invites/${invite.token}`, as(guest));
    expect(await view.json()).toMatchObject({
      roomId: room.id,
      roomName: "Project",
      invitedBy: "Olive",
      alreadyMember: false
    });

    const guestList = await socketAs(guest, ws);
    await guestList.next((f) => f.type === "rooms");
    const accepted = await api(`/api/invites/${invite.token}/accept`, as(guest, { method: "POST", json: {} }));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ workspace: ws, roomId: room.id, roomName: "Project" });
    // The room appears in the guest's list at once.
    await guestList.next((f) => f.type === "room_upserted" && f.room.id === room.id);
    // Used up: nobody else gets in with it; joining again changes nothing.
    const tooLate = await api(`/api/invites/${invite.token}/accept`, as(late, { method: "POST", json: {} }));
    expect(tooLate.status).toBe(409);
    expect(await codeOf(tooLate)).toBe("conflict:invite_used_up");
    expect((await api(`/api/invites/${invite.token}/accept`, as(guest, { method: "POST", json: {} }))).status).toBe(
      200
    );

    const members = await (await api(`${rooms(ws)}/${room.id}/members`, as(guest))).json<MemberList>();
    expect(members.members.map((m) => [m.name, m.role])).toEqual([
      ["Olive", "owner"],
      ["Gus", "member"]
    ]);
    expect(members.me).toMatchObject({ role: "member", visibility: "private" });
    expect(members.me.may).toContain("room.talk");
    expect(members.me.may).not.toContain("room.invite");
    await sendAs(guest, ws, room.id, "hi, I'm in");

    // The guest holds the room open; the owner removes them.
    const socket = await socketAs(guest, ws, room.id);
    await socket.next((f) => f.type === "cf_agent_chat_messages" || f.type === "rooms_presence");
    const removedAt = Date.now();
    const removed = await api(`${rooms(ws)}/${room.id}/members/${guest.user.id}`, as(owner, { method: "DELETE" }));
    expect(removed.status).toBe(204);
    const closed = await socket.closed;
    expect(Date.now() - removedAt).toBeLessThan(1000);
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/no longer a member/);
    await guestList.next((f) => f.type === "room_deleted" && f.id === room.id && f.reason === "access");
    // From then on it does not exist for them.
    expect((await api(`${rooms(ws)}/${room.id}`, as(guest))).status).toBe(404);
    expect(await closeCode(await socketAs(guest, ws, room.id))).toBe(4404);
    guestList.ws.close();
  });

  it("the owner adds someone who uses the workspace, found by name, with no link; a member may not; a stranger is not found", async () => {
    const ws = uniqueName();
    await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const bea = await signIn("Bea Stone");
    const mia = await signIn("Mia");
    const stranger = await signIn("Sam");
    const room = await createAs(owner, ws, { name: "Quiet", visibility: "private" });
    // Bea and Mia have used the workspace; Sam never has.
    for (const person of [bea, mia]) expect((await api(rooms(ws), as(person))).status).toBe(200);
    const candidates = async (q: string, who = owner) => {
      const response = await api(`${rooms(ws)}/${room.id}/members/candidates?q=${encodeURIComponent(q)}`, as(who));
      return { status: response.status, body: await response.json<any>() };
    };
    expect((await candidates("be")).body.people).toEqual([{ id: bea.user.id, name: "Bea Stone" }]);
    const everyone = (await candidates("")).body.people.map((p: { name: string }) => p.name);
    expect(everyone).toEqual(expect.arrayContaining(["Ada", "Bea Stone", "Mia"]));
    expect(everyone).not.toContain("Olive");
    expect(everyone).not.toContain("Sam");

    const beaList = await socketAs(bea, ws);
    await beaList.next((f) => f.type === "rooms");
    const added = await api(
      `${rooms(ws)}/${room.id}/members`,
      as(owner, { method: "POST", json: { userId: bea.user.id } })
    );
    expect(added.status, await added.clone().text()).toBe(200);
    expect((await added.json<MemberList>()).members.map((m) => [m.name, m.role])).toEqual([
      ["Olive", "owner"],
      ["Bea Stone", "member"]
    ]);
    // The room appears in her list at once, and she may read it and talk.
    await beaList.next((f) => f.type === "room_upserted" && f.room.id === room.id);
    await sendAs(bea, ws, room.id, "thanks for adding me");
    // Added once: she is no longer offered, and adding her again changes nothing.
    expect((await candidates("be")).body.people).toEqual([]);
    const again = await api(
      `${rooms(ws)}/${room.id}/members`,
      as(owner, { method: "POST", json: { userId: bea.user.id } })
    );
    expect((await again.json<MemberList>()).members).toHaveLength(2);

    // A member has no right to add anyone, or to look for people to add.
    const byMember = await api(
      `${rooms(ws)}/${room.id}/members`,
      as(bea, { method: "POST", json: { userId: mia.user.id } })
    );
    expect(byMember.status).toBe(403);
    expect(await codeOf(byMember)).toMatch(/^forbidden:/);
    expect((await candidates("", bea)).status).toBe(403);
    // An outsider sees no room at all.
    expect((await candidates("", mia)).status).toBe(404);
    // Someone who never used the workspace, or no one, cannot be added.
    const unknown = await api(
      `${rooms(ws)}/${room.id}/members`,
      as(owner, { method: "POST", json: { userId: stranger.user.id } })
    );
    expect(unknown.status).toBe(404);
    expect(await codeOf(unknown)).toBe("not_found:person");
    const empty = await api(`${rooms(ws)}/${room.id}/members`, as(owner, { method: "POST", json: { userId: "" } }));
    expect(empty.status).toBe(400);
    const members = await (await api(`${rooms(ws)}/${room.id}/members`, as(owner))).json<MemberList>();
    expect(members.members.map((m) => m.name)).toEqual(["Olive", "Bea Stone"]);
    beaList.ws.close();
  });

  it("anyone may leave, the owner only after handing the room over; revoked invitations stop working", async () => {
    const ws = uniqueName();
    await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const member = await signIn("Mia");
    const room = await createAs(owner, ws, { name: "Hand-over", visibility: "private" });
    const invite = await (await api(`${rooms(ws)}/${room.id}/invites`, as(owner, { method: "POST", json: {} }))).json<{
      id: string;
      token: string;
    }>();
    expect((await api(`/api/invites/${invite.token}/accept`, as(member, { method: "POST", json: {} }))).status).toBe(
      200
    );

    const leave = (person: SignedIn) =>
      api(`${rooms(ws)}/${room.id}/members/${person.user.id}`, as(person, { method: "DELETE" }));
    const ownerLeaves = await leave(owner);
    expect(ownerLeaves.status).toBe(409);
    expect(await codeOf(ownerLeaves)).toBe("conflict:owner_leaving");

    const handed = await api(
      `${rooms(ws)}/${room.id}/owner`,
      as(owner, { method: "POST", json: { userId: member.user.id } })
    );
    expect(handed.status).toBe(200);
    expect((await handed.json<MemberList>()).members.map((m) => [m.name, m.role])).toEqual([
      ["Mia", "owner"],
      ["Olive", "member"]
    ]);
    expect((await leave(owner)).status).toBe(204);
    expect((await api(`${rooms(ws)}/${room.id}`, as(owner))).status).toBe(404);

    // The invitation still works until revoked, then it is gone.
    const list = await (await api(`${rooms(ws)}/${room.id}/invites`, as(member))).json<{ invites: { id: string }[] }>();
    expect(list.invites.map((i) => i.id)).toEqual([invite.id]);
    expect((await api(`${rooms(ws)}/${room.id}/invites/${invite.id}`, as(member, { method: "DELETE" }))).status).toBe(
      204
    );
    const revoked = await api(`/api/invites/${invite.token}/accept`, as(owner, { method: "POST", json: {} }));
    expect(revoked.status).toBe(404);
    expect(await codeOf(revoked)).toBe("not_found:invite");
    expect((await api("/api/invites/not-a-token", as(owner))).status).toBe(404);
  });

  it("making a room private closes the sockets of everyone not in it and drops it from their lists; making it open brings it back", async () => {
    const ws = uniqueName();
    await workspaceAdmin(ws, "Ada");
    const owner = await signIn("Olive");
    const passerBy = await signIn("Pat");
    const room = await createAs(owner, ws, { name: "Open for now" });
    const list = await socketAs(passerBy, ws);
    await list.next((f) => f.type === "rooms" && f.rooms.some((r: { id: string }) => r.id === room.id));
    const socket = await socketAs(passerBy, ws, room.id);
    await socket.next((f) => f.type === "cf_agent_chat_messages" || f.type === "rooms_presence");

    const patched = await api(
      `${rooms(ws)}/${room.id}`,
      as(owner, { method: "PATCH", json: { visibility: "private" } })
    );
    expect(patched.status).toBe(200);
    expect((await patched.json<RoomDetail>()).visibility).toBe("private");
    expect((await socket.closed).code).toBe(4403);
    await list.next((f) => f.type === "room_deleted" && f.id === room.id);
    expect((await api(`${rooms(ws)}/${room.id}/messages`, as(passerBy))).status).toBe(404);

    await api(`${rooms(ws)}/${room.id}`, as(owner, { method: "PATCH", json: { visibility: "workspace" } }));
    await list.next((f) => f.type === "room_upserted" && f.room.id === room.id && f.room.visibility === "workspace");
    expect((await api(`${rooms(ws)}/${room.id}/messages`, as(passerBy))).status).toBe(200);
    list.ws.close();
  });

  it("keeps a private room from the shared anonymous identity: it may not make one, nor be invited", async () => {
    const ws = uniqueName();
    await workspaceAdmin(ws, "Ada");
    const made = await api(rooms(ws), { method: "POST", json: { name: "Mine", visibility: "private" } });
    expect(made.status).toBe(403);
    expect(await codeOf(made)).toBe("forbidden:anonymous");
    expect((await (await api(rooms(ws))).json<{ rooms: unknown[] }>()).rooms).toEqual([]);
    // What it makes belongs to everyone who has not signed in, so anyone may manage it, but not hide it.
    const open = await createRoom(ws, { name: "Everyone's" });
    const someone = await signIn("Sam");
    const renamed = await api(
      `${rooms(ws)}/${open.id}`,
      as(someone, { method: "PATCH", json: { name: "Sam's now?" } })
    );
    expect(renamed.status).toBe(200);
    const hidden = await api(
      `${rooms(ws)}/${open.id}`,
      as(someone, { method: "PATCH", json: { visibility: "private" } })
    );
    expect(hidden.status).toBe(403);
    expect(await codeOf(hidden)).toBe("forbidden:not_owner");
  });
});
