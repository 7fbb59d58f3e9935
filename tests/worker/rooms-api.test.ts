import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ChatRoom, OverseerAgent } from "../../src/server/index";
import {
  MAX_REQUEST_BODY_BYTES,
  MAX_ROOM_NAME_LENGTH,
  MAX_ROOMS_PER_WORKSPACE,
  MAX_SYSTEM_PROMPT_LENGTH
} from "../../src/shared/constants";
import type { ErrorBody } from "../../src/shared/errors";
import type { MessagePage, RoomDetail } from "../../src/shared/protocol";
import { api, createRoom, type RoomList, uniqueName } from "./helpers";

const rooms = (ws: string) => `/api/workspaces/${ws}/rooms`;

describe("class names", () => {
  it("survive bundling, because routing looks classes up by name", () => {
    expect(ChatRoom.name).toBe("ChatRoom");
    expect(OverseerAgent.name).toBe("OverseerAgent");
  });
});

describe("REST rooms", () => {
  it("creates a room with a server-generated id and returns it with 201", async () => {
    const ws = uniqueName();
    const response = await api(rooms(ws), { method: "POST", json: { name: "  Design  ", systemPrompt: "Be terse." } });
    expect(response.status).toBe(201);
    const room = await response.json<RoomDetail>();
    expect(room.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(room.name).toBe("Design");
    expect(room.settings).toEqual({ name: "Design", systemPrompt: "Be terse.", model: null, temperature: null });
    expect(room.messageCount).toBe(0);
    expect(room.offline).toBe(true);
    expect(response.headers.get("location")).toBe(`/api/rooms/${room.id}`);
  });

  it("lists rooms most recently active first", async () => {
    const ws = uniqueName();
    const first = await createRoom(ws, { name: "first" });
    const second = await createRoom(ws, { name: "second" });
    let list = await (await api(rooms(ws))).json<RoomList>();
    expect(list.rooms.map((r) => r.id)).toEqual([second.id, first.id]);

    const sent = await api(`${rooms(ws)}/${first.id}/messages`, { method: "POST", json: { text: "wake up" } });
    expect(sent.status).toBe(200);
    // The activity report travels room → overseer in the background.
    await expect
      .poll(async () => (await (await api(rooms(ws))).json<RoomList>()).rooms.map((r) => r.id))
      .toEqual([first.id, second.id]);
    list = await (await api(rooms(ws))).json<RoomList>();
    expect(list.rooms[0].messageCount).toBe(2);
    expect(list.rooms[0].lastMessagePreview).toContain("Offline model");
  });

  it("reads, renames and updates a room's settings", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "before" });
    const patched = await api(`${rooms(ws)}/${room.id}`, {
      method: "PATCH",
      json: { name: "after", systemPrompt: "You are a pirate.", model: "llama3.2:1b", temperature: 0.3 }
    });
    expect(patched.status).toBe(200);
    const detail = await (await api(`${rooms(ws)}/${room.id}`)).json<RoomDetail>();
    expect(detail.name).toBe("after");
    expect(detail.settings).toEqual({
      name: "after",
      systemPrompt: "You are a pirate.",
      model: "llama3.2:1b",
      temperature: 0.3
    });
    const list = await (await api(rooms(ws))).json<RoomList>();
    expect(list.rooms[0].name).toBe("after");
  });

  it("returns 404 for a room that never existed", async () => {
    const response = await api(`${rooms(uniqueName())}/nope-nope-nope-nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: "not_found:room", message: expect.stringContaining("nope-nope-nope-nope") }
    });
  });

  it("deletes a room: 204, then 404 on every route, and 404 when deleted twice", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    expect((await api(`${rooms(ws)}/${room.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`${rooms(ws)}/${room.id}`)).status).toBe(404);
    expect((await api(`${rooms(ws)}/${room.id}/messages`)).status).toBe(404);
    expect((await api(`${rooms(ws)}/${room.id}`, { method: "PATCH", json: { name: "x" } })).status).toBe(404);
    expect((await api(`${rooms(ws)}/${room.id}/messages`, { method: "POST", json: { text: "hi" } })).status).toBe(404);
    expect((await api(`${rooms(ws)}/${room.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await (await api(rooms(ws))).json<RoomList>()).rooms).toEqual([]);
  });

  it("wipes the facet's storage when a room is deleted", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    await api(`${rooms(ws)}/${room.id}/messages`, { method: "POST", json: { text: "remember me" } });
    await api(`${rooms(ws)}/${room.id}`, { method: "DELETE" });
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    await runInDurableObject(stub, async (overseer: OverseerAgent) => {
      expect(overseer.dynamicAgents.has(ChatRoom, room.id)).toBe(false);
      // Re-opening the same facet name now finds empty storage.
      const reopened = await overseer.dynamicAgents.get(ChatRoom, room.id);
      const page = await reopened.listMessages({ limit: 10 });
      expect(page.messages).toEqual([]);
      await overseer.dynamicAgents.delete(ChatRoom, room.id);
    });
  });

  it("refuses a room past the per-workspace limit with 409", async () => {
    const ws = uniqueName();
    await createRoom(ws);
    const stub = env.OverseerAgent.get(env.OverseerAgent.idFromName(ws));
    await runInDurableObject(stub, (overseer: OverseerAgent) => {
      // Registry rows only: enough to reach the limit without 2,000 facets.
      for (let i = 1; i < MAX_ROOMS_PER_WORKSPACE; i++) {
        overseer.sql`INSERT INTO rooms (id, name, created_at, last_active_at) VALUES (${`filler-${i}`}, ${"filler"}, 0, 0)`;
      }
    });
    const response = await api(rooms(ws), {
      method: "POST",
      json: { name: "one too many" },
      headers: { "cf-connecting-ip": "198.51.100.1" }
    });
    expect(response.status).toBe(409);
    expect((await response.json<ErrorBody>()).error).toEqual({
      code: "conflict:room_limit",
      message: expect.stringContaining(String(MAX_ROOMS_PER_WORKSPACE))
    });
  });

  it("keeps workspaces apart: a room id from one is unknown in another", async () => {
    const a = uniqueName("a");
    const room = await createRoom(a);
    expect((await api(`${rooms(uniqueName("b"))}/${room.id}`)).status).toBe(404);
    expect((await api(`${rooms(a)}/${room.id}`)).status).toBe(200);
  });
});

describe("REST validation", () => {
  const cases: Array<[string, RequestInit & { json?: unknown }, number, string, RegExp]> = [
    ["an empty name", { method: "POST", json: { name: "   " } }, 400, "bad_request:body", /name must not be empty/],
    ["a missing name", { method: "POST", json: {} }, 400, "bad_request:body", /name/],
    [
      "an over-long name",
      { method: "POST", json: { name: "x".repeat(MAX_ROOM_NAME_LENGTH + 1) } },
      400,
      "bad_request:body",
      /at most/
    ],
    [
      "a name with control characters",
      { method: "POST", json: { name: "a\u0000b" } },
      400,
      "bad_request:body",
      /control/
    ],
    [
      "an over-long system prompt",
      { method: "POST", json: { name: "ok", systemPrompt: "p".repeat(MAX_SYSTEM_PROMPT_LENGTH + 1) } },
      400,
      "bad_request:body",
      /systemPrompt must be at most/
    ],
    ["an unknown field", { method: "POST", json: { name: "ok", admin: true } }, 400, "bad_request:body", /admin/],
    ["a wrong type", { method: "POST", json: { name: 42 } }, 400, "bad_request:body", /name must be a string/],
    [
      "a temperature out of range",
      { method: "POST", json: { name: "ok", temperature: 9 } },
      400,
      "bad_request:body",
      /temperature/
    ],
    [
      "invalid JSON",
      { method: "POST", body: "{nope", headers: { "content-type": "application/json" } },
      400,
      "bad_request:json",
      /not valid JSON/
    ],
    [
      "a body that is not JSON",
      { method: "POST", body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } },
      415,
      "bad_request:json",
      /application\/json/
    ],
    [
      "a body over the size cap",
      {
        method: "POST",
        body: JSON.stringify({ name: "x".repeat(MAX_REQUEST_BODY_BYTES) }),
        headers: { "content-type": "application/json" }
      },
      413,
      "payload_too_large:body",
      /larger than/
    ]
  ];

  for (const [what, init, status, code, message] of cases) {
    it(`rejects ${what} with ${status} and a clear message`, async () => {
      const ws = uniqueName();
      const response = await api(rooms(ws), init);
      expect(response.status).toBe(status);
      const body = await response.json<ErrorBody>();
      expect(body.error.code).toBe(code);
      expect(body.error.message).toMatch(message);
      // Nothing was created by the bad request.
      expect((await (await api(rooms(ws))).json<RoomList>()).rooms).toEqual([]);
    });
  }

  it("rejects a PATCH with no fields", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const response = await api(`${rooms(ws)}/${room.id}`, { method: "PATCH", json: {} });
    expect(response.status).toBe(400);
    expect((await response.json<ErrorBody>()).error.message).toMatch(/at least one/);
  });

  it("rejects a bad page size and an invalid workspace", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const bad = await api(`${rooms(ws)}/${room.id}/messages?limit=0`);
    expect(bad.status).toBe(400);
    expect((await bad.json<ErrorBody>()).error.code).toBe("bad_request:query");
    const workspace = await api(`/api/workspaces/NOT%20OK/rooms`);
    expect(workspace.status).toBe(400);
    expect((await workspace.json<ErrorBody>()).error.code).toBe("bad_request:workspace");
  });

  it("has no benchmark seeding route in the production Worker", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const response = await api(`${rooms(ws)}/${room.id}/__bench/seed`, { method: "POST", json: { count: 10 } });
    expect(response.status).toBe(404);
    expect((await response.json<ErrorBody>()).error.code).toBe("not_found:route");
    expect((await (await api(`${rooms(ws)}/${room.id}/messages`)).json<MessagePage>()).messages).toEqual([]);
  });

  it("answers unknown API routes with a JSON 404", async () => {
    const response = await api("/api/nothing-here");
    expect(response.status).toBe(404);
    expect((await response.json<ErrorBody>()).error.code).toBe("not_found:route");
  });
});
