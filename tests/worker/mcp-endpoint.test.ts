/**
 * Rooms as an MCP server: the MCP SDK's client on `/mcp` of the real
 * Worker, with a named API token. It sees what the token's identity sees
 * over REST (a private room it is not in does not exist, in lists, reads
 * and search alike), pages a room without dumping it, posts as the token's
 * member and gets the answer, creates rooms; without a token, with a
 * revoked one or with anything but an API token it is refused.
 */
import { exports } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CreatedApiToken } from "@/shared/members";
import type { RoomDetail } from "@/shared/protocol";
import { connectMcp, type McpSession } from "../support/mcp-client";
import { api, BASE, history, type SignedIn, signIn, uniqueName, workspaceAdmin } from "./helpers";

const workerFetch = (request: Request) => exports.default.fetch(request);
/** Each client its own address, so limits and wrong-token throttling here touch no one else. */
const address = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}`;

const open: McpSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((session) => session.close()));
});

async function mcp(token: string | null, headers: Record<string, string> = {}): Promise<McpSession> {
  const session = await connectMcp(BASE, token, {
    fetcher: workerFetch,
    headers: { "cf-connecting-ip": address(), ...headers }
  });
  open.push(session);
  return session;
}

async function makeToken(ws: string, by: SignedIn, name: string): Promise<CreatedApiToken> {
  const response = await api(`/api/workspaces/${ws}/tokens`, { method: "POST", json: { name }, headers: by.headers });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json<CreatedApiToken>();
}

async function createAs(who: SignedIn, ws: string, body: Record<string, unknown>): Promise<RoomDetail> {
  const response = await api(`/api/workspaces/${ws}/rooms`, { method: "POST", json: body, headers: who.headers });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json<RoomDetail>();
}

async function sendAs(who: SignedIn, ws: string, roomId: string, text: string) {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages`, {
    method: "POST",
    json: { text },
    headers: who.headers
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** A workspace with an admin, the admin's token, an open room and a private room the token is not in. */
async function workspaceWithRooms() {
  const ws = uniqueName();
  const admin = await workspaceAdmin(ws, "Ada");
  const [token, openRoom, privateRoom] = await Promise.all([
    makeToken(ws, admin, "Claude Code"),
    createAs(admin, ws, { name: "Plans" }),
    createAs(admin, ws, { name: "Secret plans", visibility: "private" })
  ]);
  return { ws, admin, token, secret: uniqueName("drawer"), openRoom, privateRoom };
}

// The file's first MCP exchange loads the SDK on both sides (the test's client,
// the Worker's server): a one-off cost that belongs to setup, not to a test.
beforeAll(async () => {
  const { token } = await workspaceWithRooms();
  await (await mcp(token.token)).toolNames();
});

describe("the MCP endpoint", () => {
  it("offers the five tools and lists only the rooms the token's identity can see", async () => {
    const { token, openRoom, privateRoom } = await workspaceWithRooms();
    const session = await mcp(token.token);
    expect(await session.toolNames()).toEqual(["create_room", "list_rooms", "post_message", "read_room", "search"]);
    const listed = await session.call("list_rooms");
    expect(listed.isError).toBe(false);
    const ids = listed.json.rooms.map((room: { id: string }) => room.id);
    expect(ids).toContain(openRoom.id);
    expect(ids).not.toContain(privateRoom.id);
    expect(listed.json.rooms.find((room: { id: string }) => room.id === openRoom.id)).toMatchObject({
      name: "Plans",
      visibility: "workspace"
    });
  });

  it("reads a room a page at a time, older pages by the cursor, never the whole room at once", async () => {
    const { ws, admin, token, openRoom } = await workspaceWithRooms();
    for (const text of ["one", "two"]) await sendAs(admin, ws, openRoom.id, text);
    const stored = await history(ws, openRoom.id);
    expect(stored).toHaveLength(4); // two questions, two offline answers
    const session = await mcp(token.token);

    const newest = await session.call("read_room", { room: openRoom.id, limit: 3 });
    expect(newest.isError, newest.text).toBe(false);
    expect(newest.json.messages.map((m: { id: string }) => m.id)).toEqual(stored.slice(1).map((m) => m.id));
    expect(newest.json.messages[1]).toMatchObject({ role: "user", text: "two", author: { name: "Ada" } });
    expect(newest.json.messages[1].createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(newest.json.messages[2]).toMatchObject({ role: "assistant", author: { name: "Assistant" } });
    expect(newest.json.nextCursor).toEqual(expect.any(String));

    const older = await session.call("read_room", { room: openRoom.id, limit: 3, cursor: newest.json.nextCursor });
    expect(older.json.messages.map((m: { id: string }) => m.id)).toEqual([stored[0].id]);
    expect(older.json.messages[0]).toMatchObject({ role: "user", text: "one" });
    expect(older.json.nextCursor).toBeNull();

    const tooMany = await session.call("read_room", { room: openRoom.id, limit: 500 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toContain("limit must be at most 50");
  });

  it("treats a private room it is not in as a room that does not exist: read, search, post", async () => {
    const { ws, admin, token, secret, privateRoom } = await workspaceWithRooms();
    await sendAs(admin, ws, privateRoom.id, `the key is in the ${secret}`);
    const session = await mcp(token.token);

    const read = await session.call("read_room", { room: privateRoom.id });
    expect(read.isError).toBe(true);
    expect(read.text).toBe(`Room "${privateRoom.id}" does not exist or was deleted. (not_found:room)`);

    const searched = await session.call("search", { query: secret });
    expect(searched.isError).toBe(false);
    expect(searched.json.results).toEqual([]);
    const inRoom = await session.call("search", { query: secret, room: privateRoom.id });
    expect(inRoom.isError).toBe(true);
    expect(inRoom.text).toContain("(not_found:room)");

    const posted = await session.call("post_message", { room: privateRoom.id, text: "let me in" });
    expect(posted.isError).toBe(true);
    expect(posted.text).toContain("(not_found:room)");
    const unknown = await session.call("read_room", { room: "no-such-room" });
    expect(unknown.text).toBe(`Room "no-such-room" does not exist or was deleted. (not_found:room)`);
  });

  it("finds what the token may see, and the admin's private room once the admin asks", async () => {
    const { ws, admin, token, secret, openRoom, privateRoom } = await workspaceWithRooms();
    await Promise.all([
      sendAs(admin, ws, openRoom.id, `the map is under the ${secret}`),
      sendAs(admin, ws, privateRoom.id, `the key is in the ${secret}`)
    ]);
    const session = await mcp(token.token);
    const found = await session.call("search", { query: secret });
    // The question and the offline model's answer, which quotes it: both in the open room.
    expect(new Set(found.json.results.map((r: { room: string }) => r.room))).toEqual(new Set([openRoom.id]));
    const question = found.json.results.find((r: { role: string }) => r.role === "user");
    expect(question).toMatchObject({ roomName: "Plans", author: "Ada" });
    expect(question.snippet).toContain(secret);
    // The same search over REST by the admin finds both: the difference is who asks.
    const asAdmin = await api(`/api/workspaces/${ws}/search?q=${secret}`, { headers: admin.headers });
    const adminRooms = (await asAdmin.json<{ results: { roomId: string }[] }>()).results.map((r) => r.roomId);
    expect(new Set(adminRooms)).toEqual(new Set([openRoom.id, privateRoom.id]));
  });

  it("posts as the token's member and answers with the room's answer, or returns at once without waiting", async () => {
    const { ws, token, openRoom } = await workspaceWithRooms();
    const session = await mcp(token.token);
    const marker = uniqueName("question");
    const answered = await session.call("post_message", { room: openRoom.id, text: `${marker} what is the plan?` });
    expect(answered.isError, answered.text).toBe(false);
    expect(answered.json).toMatchObject({
      status: "completed",
      posted: { role: "user", author: { id: `token:${token.id}`, name: "Claude Code" } }
    });
    expect(answered.json.answer.role).toBe("assistant");
    expect(answered.json.answer.text.length).toBeGreaterThan(0);

    const quick = await session.call("post_message", { room: openRoom.id, text: "no need to wait", wait: false });
    expect(quick.json).toMatchObject({ status: "posted", answer: null, posted: { text: "no need to wait" } });

    // Everyone in the room sees the token's messages under its name.
    const stored = await history(ws, openRoom.id);
    const mine = stored.filter((m) => m.role === "user").map((m) => [m.metadata.author, m.parts[0].text]);
    expect(mine).toEqual([
      [{ id: `token:${token.id}`, name: "Claude Code" }, `${marker} what is the plan?`],
      [{ id: `token:${token.id}`, name: "Claude Code" }, "no need to wait"]
    ]);

    const empty = await session.call("post_message", { room: openRoom.id, text: "   " });
    expect(empty.isError).toBe(true);
    expect(empty.text).toContain("text must not be empty");
  });

  it("creates rooms the token owns, private ones only visible to it and the admins", async () => {
    const { ws, token } = await workspaceWithRooms();
    const session = await mcp(token.token);
    const created = await session.call("create_room", { name: "From Claude", visibility: "private" });
    expect(created.isError, created.text).toBe(false);
    expect(created.json.room).toMatchObject({ name: "From Claude", visibility: "private", yourRole: "owner" });
    const listed = await session.call("list_rooms");
    expect(listed.json.rooms.map((r: { id: string }) => r.id)).toContain(created.json.room.id);
    const someone = await signIn("Bea");
    const theirs = await api(`/api/workspaces/${ws}/rooms/${created.json.room.id}`, { headers: someone.headers });
    expect(theirs.status).toBe(404);
    const badName = await session.call("create_room", { name: "" });
    expect(badName.isError).toBe(true);
    expect(badName.text).toContain("name must not be empty");
  });
});

describe("who the MCP endpoint refuses", () => {
  async function refusal(headers: Record<string, string>): Promise<{ status: number; code: string }> {
    const response = await api("/mcp", {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "cf-connecting-ip": address(), ...headers },
      json: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }
    });
    return { status: response.status, code: (await response.json<{ error: { code: string } }>()).error.code };
  }

  it("refuses a client without a token, with a revoked token, or with a session instead of a token", async () => {
    const { ws, admin, token } = await workspaceWithRooms();
    await expect(mcp(null)).rejects.toThrow(/unauthorized:token/);
    expect(await refusal({})).toEqual({ status: 401, code: "unauthorized:token" });
    // A signed-in browser's cookie is not an MCP credential.
    expect(await refusal(admin.headers)).toEqual({ status: 401, code: "unauthorized:token" });

    const session = await mcp(token.token);
    expect((await session.call("list_rooms")).isError).toBe(false);
    const revoked = await api(`/api/workspaces/${ws}/tokens/${token.id}`, { method: "DELETE", headers: admin.headers });
    expect(revoked.status).toBe(204);
    await expect(session.call("list_rooms")).rejects.toThrow(/not valid: it was revoked/);
    expect(await refusal({ authorization: `Bearer ${token.token}` })).toEqual({
      status: 401,
      code: "unauthorized:token"
    });
  });

  it("answers a browser client's CORS preflight without credentials, and nothing else", async () => {
    const preflight = await exports.default.fetch(`${BASE}/mcp`, {
      method: "OPTIONS",
      headers: { "access-control-request-method": "POST", "access-control-request-headers": "authorization" }
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
    expect(await preflight.text()).toBe("");
  });
});
