import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../src/server/index";
import type { ErrorBody } from "../../src/shared/errors";
import type { Identity } from "../../src/shared/identity";
import { BASE, createRoom, roomPath, uniqueName } from "./helpers";

const TOKEN = "correct horse battery staple";
const guardedEnv = { ...env, ACCESS_TOKEN: TOKEN, ALLOWED_ORIGINS: "https://trusted.example" };

async function call(path: string, init: RequestInit = {}, withEnv: object = guardedEnv) {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`${BASE}${path}`, init), withEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** Every concrete route the app serves, from Hono's own route table. */
function routeTable(workspace: string, roomId: string) {
  const seen = new Set<string>();
  const routes: Array<{ method: string; path: string }> = [];
  for (const route of app.routes) {
    if (route.path.endsWith("*")) continue; // middleware and catch-alls
    const path = route.path.replace(":workspace", workspace).replace(":id", roomId);
    // `app.all` (the /mcp endpoint) is walked with each method an MCP client sends.
    for (const method of route.method === "ALL" ? ["GET", "POST", "DELETE"] : [route.method]) {
      const key = `${method} ${path}`;
      if (!seen.has(key)) {
        seen.add(key);
        routes.push({ method, path });
      }
    }
  }
  return routes;
}

// Routes that must answer without a token: signing in itself, and a share
// link's viewer, whose signed link is its credential (tests/worker/shares.test.ts).
const OPEN = new Set([
  "GET /api/session",
  "POST /api/session",
  "PATCH /api/session",
  "DELETE /api/session",
  "GET /api/share/:token",
  "GET /api/share/:token/messages",
  "GET /api/share/:token/files",
  "GET /api/share/:token/files/:fileId",
  "GET /api/share/:token/socket",
  // A browser's CORS preflight carries no credentials; /mcp answers it without any (docs/tools.md).
  "OPTIONS /mcp"
]);

describe("the access token", () => {
  it("is required on every route but sign-in (a new route without protection fails here)", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const routes = routeTable(ws, room.id);
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const { method, path } of routes) {
      const init: RequestInit = { method, headers: { "content-type": "application/json" } };
      if (method === "POST" || method === "PATCH") init.body = JSON.stringify({ name: "x", text: "x", token: "wrong" });
      const response = await call(path, init);
      const key = `${method} ${path}`;
      if (OPEN.has(key)) {
        expect(response.status, key).not.toBe(500);
      } else {
        expect(response.status, key).toBe(401);
        expect((await response.json<ErrorBody>()).error.code, key).toMatch(/^unauthorized:/);
      }
    }
    // The room was not touched by any of those requests.
    const check = await call(`/api/workspaces/${ws}/rooms/${room.id}`, {
      headers: { authorization: `Bearer ${TOKEN}` }
    });
    expect(check.status).toBe(200);
  });

  it("is accepted as a bearer token (the API identity) and signs people in to a cookie that never holds it", async () => {
    expect((await call("/api/rooms", { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(
      (await call("/api/rooms", { headers: { authorization: "Bearer nope", "cf-connecting-ip": "198.51.100.1" } }))
        .status
    ).toBe(401);
    const asApi = await call("/api/session", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect((await asApi.json<{ user: Identity }>()).user).toEqual({ id: "api", name: "API", kind: "api" });

    const refused = await call("/api/session", {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": "198.51.100.2" },
      body: JSON.stringify({ name: "Ann", token: "nope" })
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const noToken = await call("/api/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ann" })
    });
    expect(noToken.status).toBe(401);

    const signIn = await call("/api/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ann", token: TOKEN })
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^rooms_session=[\w.-]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(encodeURIComponent(TOKEN));
    const { user } = await signIn.json<{ user: Identity }>();
    expect(user).toMatchObject({ name: "Ann", kind: "user" });
    const cookieHeader = cookie.split(";")[0];
    expect((await call("/api/rooms", { headers: { cookie: cookieHeader } })).status).toBe(200);
    const session = await call("/api/session", { headers: { cookie: cookieHeader } });
    expect((await session.json<{ user: Identity }>()).user).toEqual(user);
    // A session issued under one token does not survive the token changing.
    const rotated = await call(
      "/api/rooms",
      { headers: { cookie: cookieHeader } },
      { ...guardedEnv, ACCESS_TOKEN: "new" }
    );
    expect(rotated.status).toBe(401);
  });

  it("keeps a WebSocket without the token from ever reaching a room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const denied = await call(roomPath(ws, room.id), { headers: { upgrade: "websocket" } });
    expect(denied.status).toBe(401);
    expect(denied.webSocket).toBeNull();
    const allowed = await call(roomPath(ws, room.id), {
      headers: { upgrade: "websocket", authorization: `Bearer ${TOKEN}` }
    });
    expect(allowed.status).toBe(101);
    allowed.webSocket!.accept();
    allowed.webSocket!.close();
  });

  it("is not needed for a room's MCP OAuth callback, which only a state the room issued opens (docs/tools.md)", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const callback = `${roomPath(ws, room.id)}/mcp-callback?code=c&state=nonce.sNoSuchServer`;
    // No token, no session (the provider's redirect brings none): the room answers, and refuses
    // a state naming none of its servers.
    const refused = await call(callback);
    expect(refused.status).toBe(404);
    // Only that GET: the same path with another method, or any other room path, still needs the token.
    expect((await call(callback, { method: "POST" })).status).toBe(401);
    expect((await call(`${roomPath(ws, room.id)}/get-messages`)).status).toBe(401);
    expect((await call(`${roomPath(ws, room.id)}/mcp-callback/more?state=nonce.s1`)).status).toBe(401);
    // Nor a socket: at this path it would reach the room with no one's session.
    expect((await call(callback, { headers: { upgrade: "websocket" } })).status).toBe(401);
    // An unknown room is the gate's 404.
    expect((await call(`${roomPath(ws, "nope")}/mcp-callback?code=c&state=nonce.s1`)).status).toBe(404);
  });

  it("is not needed when ACCESS_TOKEN is unset: no session means the anonymous API identity", async () => {
    const session = await exports.default.fetch(`${BASE}/api/session`);
    expect(session.status).toBe(401);
    expect(await session.json()).toMatchObject({ signIn: { tokenRequired: false, access: false } });
    expect((await exports.default.fetch(`${BASE}/api/rooms`)).status).toBe(200);
  });
});

describe("WebSocket origins", () => {
  const openEnv = { ...env, ALLOWED_ORIGINS: "https://trusted.example" };
  const upgrade = (origin?: string) => ({ upgrade: "websocket", ...(origin ? { origin } : {}) });

  it("refuses an upgrade from a foreign origin with 403", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const response = await call(roomPath(ws, room.id), { headers: upgrade("https://evil.example") }, openEnv);
    expect(response.status).toBe(403);
    expect((await response.json<ErrorBody>()).error.code).toBe("forbidden:origin");
    const list = await call(`/agents/overseer-agent/${ws}`, { headers: upgrade("https://evil.example") }, openEnv);
    expect(list.status).toBe(403);
  });

  it("accepts our own origin, a configured origin, and clients that send none", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    for (const origin of [BASE, "https://trusted.example", undefined]) {
      const response = await call(roomPath(ws, room.id), { headers: upgrade(origin) }, openEnv);
      expect(response.status, String(origin)).toBe(101);
      response.webSocket!.accept();
      response.webSocket!.close();
    }
  });
});
