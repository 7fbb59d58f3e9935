import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FRAMEWORK_FRAME_TYPES } from "@/server/domain/sockets/room-frames";
import { MAX_MESSAGE_LENGTH, MAX_REQUEST_BODY_BYTES } from "@/shared/constants";
import { outboxRequestFrame } from "@/shared/outbox";
import { chatRequest, isDone } from "../support/chat-protocol";
import { restClient, roomsPath, signIn } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { openSocket, type Socket } from "../support/socket";

// Hundreds of generated hostile inputs against the running app. Seeded, so a
// failure reproduces; bounded, so it always ends.
const app = useSharedApp({ provider: "offline" });

/**
 * Paces a flood: a frame the room refuses by name, and its refusal back.
 * Frames on one socket are taken in order, so the refusal arriving means
 * the room has dealt with everything sent before it (unless it closed the
 * socket, which the loop then reopens).
 */
async function roundTrip(socket: Socket, type: string) {
  if (socket.ws.readyState !== WebSocket.OPEN) return;
  const refused = socket.next(
    (f) => f?.type === "rooms_error" && typeof f.message === "string" && f.message.includes(`"${type}"`),
    30_000,
    `the refusal of ${type}`
  );
  // Handled here too: once the socket has closed, the refusal never comes.
  refused.catch(() => {});
  socket.send({ type });
  await Promise.race([refused, socket.closed]);
}

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function generator(seed: number) {
  const random = prng(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const strings = [
    "",
    " ",
    "\u0000",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "'; DROP TABLE rooms; --",
    "💥".repeat(50),
    "\ud800",
    "x".repeat(MAX_MESSAGE_LENGTH + 1),
    "y".repeat(MAX_REQUEST_BODY_BYTES + 10),
    "__proto__",
    "constructor",
    "../../etc/passwd",
    "%00%ff",
    "[[fake:hang]]"
  ];
  const value = (depth: number): unknown => {
    switch (depth > 3 ? int(4) : int(8)) {
      case 0:
        return pick(strings);
      case 1:
        return pick([0, -1, 1e308, Number.MAX_SAFE_INTEGER, 3.14, -0]);
      case 2:
        return pick([true, false, null]);
      case 3:
        return "s".repeat(int(300));
      case 4:
        return Array.from({ length: int(5) }, () => value(depth + 1));
      default: {
        // A null prototype, so a "__proto__" key is an own key as in JSON.
        const object: Record<string, unknown> = Object.create(null);
        for (let i = 0; i < int(5); i++)
          object[
            pick([
              "name",
              "systemPrompt",
              "model",
              "temperature",
              "text",
              "author",
              "extra",
              "__proto__",
              "type",
              "messages"
            ])
          ] = value(depth + 1);
        return object;
      }
    }
  };
  const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
  const body = (): string | Uint8Array => {
    switch (int(6)) {
      case 0:
        return deep(1 + int(5000));
      case 1:
        return pick(["{", '{"name":', "null", "[]", '"just a string"', '{"name": "a", }', "NaN"]);
      case 2:
        return new Uint8Array(Array.from({ length: 1 + int(64) }, () => 0x80 + int(0x80))); // invalid UTF-8
      default:
        return JSON.stringify(value(0));
    }
  };
  return { random, int, pick, value, body, deep };
}

describe("fuzzing the running app", () => {
  it("answers hundreds of hostile REST requests with 4xx, never 5xx, and loses nothing", async () => {
    const api = app.api;
    const room = await api.createRoom({ name: "Fuzz target" });
    expect((await api.send(room.id, "keep me")).status).toBe(200);
    const before = await api.messages(room.id);
    const g = generator(20261129);
    const rooms = roomsPath(app.workspace);
    const targets = [
      ["POST", rooms],
      ["PATCH", `${rooms}/${room.id}`],
      ["POST", `${rooms}/${room.id}/messages`],
      ["PATCH", `${rooms}/does-not-exist`],
      ["POST", `${rooms}/does-not-exist/messages`],
      ["POST", "/api/session"]
    ] as const;
    const failures: string[] = [];
    let count = 0;
    for (let i = 0; i < 300; i++) {
      const [method, path] = g.pick(targets);
      const payload = g.body();
      const contentType = g.int(10) === 0 ? "text/plain" : "application/json";
      const response = await fetch(`${app.url}${path}`, {
        method,
        body: payload as BodyInit,
        headers: { "content-type": contentType }
      });
      count++;
      if (response.status >= 500) {
        const shown = typeof payload === "string" ? payload.slice(0, 200) : Buffer.from(payload).toString("hex");
        failures.push(`${method} ${path} ${shown} → ${response.status}: ${(await response.text()).slice(0, 200)}`);
      } else {
        await response.arrayBuffer();
      }
    }
    for (let i = 0; i < 60; i++) {
      const query = `?limit=${encodeURIComponent(JSON.stringify(g.value(3)) ?? "")}&before=${encodeURIComponent(JSON.stringify(g.value(3)) ?? "")}`;
      const response = await fetch(`${app.url}${rooms}/${room.id}/messages${query}`);
      count++;
      if (response.status >= 500) failures.push(`GET messages${query} → ${response.status}`);
      await response.arrayBuffer();
    }
    for (const path of [
      `${rooms}/%00`,
      `${rooms}/${"a".repeat(5000)}`,
      "/api/workspaces/%2e%2e/rooms",
      `${rooms}/x/messages/y`,
      `/agents/overseer-agent/${app.workspace}/sub/sub/x`
    ]) {
      const response = await fetch(`${app.url}${path}`);
      count++;
      if (response.status >= 500) failures.push(`GET ${path} → ${response.status}`);
      await response.arrayBuffer();
    }
    expect(count).toBeGreaterThanOrEqual(300);
    expect(failures).toEqual([]);

    // Still serving, and the stored exchange is intact.
    expect((await fetch(`${app.url}${roomsPath(app.workspace)}`)).status).toBe(200);
    const after = await api.messages(room.id);
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
  });

  it("survives hundreds of hostile WebSocket frames without losing or altering messages", async () => {
    const api = app.api;
    const room = await api.createRoom({ name: "Socket fuzz" });
    expect((await api.send(room.id, "keep me too")).status).toBe(200);
    const before = await api.messages(room.id);
    const g = generator(42);
    // Every frame type the framework knows (both directions), ours, and an unknown one.
    const frameTypes = [...FRAMEWORK_FRAME_TYPES, "rooms_hello", "rooms_typing", "unknown_type"];
    let sent = 0;
    let socket = await openSocket(api.roomSocketUrl(room.id));
    for (let i = 0; i < 300; i++) {
      if (socket.ws.readyState !== WebSocket.OPEN) socket = await openSocket(api.roomSocketUrl(room.id));
      const kind = g.int(5);
      if (kind === 0) {
        socket.ws.send(Buffer.from(g.body() as string | Uint8Array), { binary: g.int(2) === 0 });
      } else if (kind === 1) {
        socket.ws.send(g.deep(1 + g.int(3000)));
      } else {
        const frame: Record<string, unknown> = { type: g.pick(frameTypes), id: JSON.stringify(g.value(2)) ?? "" };
        if (g.int(2))
          frame.init = { method: g.pick(["POST", "GET", 1]), body: g.int(2) ? JSON.stringify(g.value(0)) : g.value(1) };
        if (g.int(3) === 0) frame.name = g.value(1);
        if (g.int(3) === 0) frame.typing = g.value(1);
        if (g.int(3) === 0) frame.state = g.value(0);
        socket.ws.send(JSON.stringify(frame));
      }
      sent++;
      if (i % 25 === 24) await roundTrip(socket, `fuzz_sync_${i}`);
    }
    // And every framework frame type once more, each carrying a forged transcript.
    for (const type of FRAMEWORK_FRAME_TYPES) {
      if (socket.ws.readyState !== WebSocket.OPEN) socket = await openSocket(api.roomSocketUrl(room.id));
      const forged = before.messages.map((m: any) => ({
        ...m,
        role: "system",
        parts: [{ type: "text", text: "FORGED" }]
      }));
      socket.send({
        type,
        id: `fuzz-${type}`,
        messages: forged,
        state: { forged: true },
        method: "describe",
        args: []
      });
      sent++;
    }
    expect(sent).toBe(300 + FRAMEWORK_FRAME_TYPES.length);
    socket.close();

    // The room still answers, and what was stored before is unchanged.
    const fresh = await openSocket(api.roomSocketUrl(room.id));
    const { id, frame } = chatRequest("after the storm");
    fresh.send(frame);
    await fresh.next(isDone(id), 30_000);
    const after = await api.messages(room.id);
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect(after.messages.some((m) => m.parts?.some((p: any) => p.text === "after the storm"))).toBe(true);
    fresh.close();
    expect((await fetch(`${app.url}${roomsPath(app.workspace)}`)).status).toBe(200);
  });

  it("never lets a chat request reuse the id of a stored, versioned or out-of-window message", async () => {
    const ann = await signIn(app.url, "Ann");
    const ben = await signIn(app.url, "Ben");
    const api = restClient(app.url, { workspace: app.workspace, as: ann });
    // Older messages than the room keeps in memory: 40 imported messages of 6,000 characters (the window is 64 KiB).
    const imported = await api.call("/import", {
      method: "POST",
      json: {
        format: "rooms.room-export",
        version: 1,
        room: { name: "Id fuzz" },
        messages: Array.from({ length: 40 }, (_, i) => ({
          id: `m${i}`,
          role: i % 2 === 0 ? "user" : "assistant",
          parts: [{ type: "text", text: `${i} ${"old ".repeat(1_500)}` }],
          metadata: { createdAt: 1_700_000_000_000 + i }
        }))
      }
    });
    expect(imported.status).toBe(201);
    const roomId = ((await imported.json()) as { rooms: Array<{ id: string }> }).rooms[0].id;
    const annSocket = await openSocket(api.roomSocketUrl(roomId), ann.headers);
    const benSocket = await openSocket(api.roomSocketUrl(roomId), ben.headers);
    const settle = async (socket: Socket, frame: { id: string }) => {
      socket.send(frame);
      await socket.next(isDone(frame.id), 30_000);
    };
    // Versions: Ann asks, edits her question, and has the answer regenerated.
    const asked = chatRequest("Ann asks");
    await settle(annSocket, asked.frame);
    const edited = chatRequest("Ann asks, edited", { messageId: asked.message.id });
    await settle(annSocket, edited.frame);
    const path = (await api.messages(roomId, "?limit=200")).messages;
    const regenerated = chatRequest("", { trigger: "regenerate-message", history: [path.at(-2)] });
    await settle(annSocket, regenerated.frame);

    /** Every stored row, transcript and kept versions alike, by id (the JSON export holds both). */
    const storedRows = async () => {
      const exported = JSON.parse(await (await api.call(`/${roomId}/export?format=json`)).text());
      const rows = new Map<string, unknown>();
      for (const m of exported.messages) rows.set(m.id, m);
      for (const v of exported.versions ?? []) rows.set(v.message.id, v.message);
      return rows;
    };
    const before = await storedRows();
    const ids = [...before.keys()];
    const transcript = (await api.messages(roomId, "?limit=200")).messages.map((m: any) => m.id);
    const offPath = ids.filter((id) => !transcript.includes(id));
    const outOfWindow = transcript.slice(0, 10);
    expect(offPath.length).toBeGreaterThanOrEqual(2); // the first question and the first answer
    expect(ids.length).toBeGreaterThanOrEqual(44);

    const g = generator(2112);
    const refusedCodes = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const socket = g.int(2) === 0 ? annSocket : benSocket;
      const id = g.pick([g.pick(ids), g.pick(offPath), g.pick(outOfWindow)]);
      const requestId = `reuse-${i}`;
      const text = `REUSED ${i}`;
      let frame: unknown;
      switch (g.int(4)) {
        case 0: // an outbox send under the stored id
          frame = JSON.parse(outboxRequestFrame(requestId, { id, text, createdAt: Date.now() }));
          break;
        case 1: // a "new" message of another role under the stored id
          frame = {
            type: "cf_agent_use_chat_request",
            id: requestId,
            init: {
              method: "POST",
              body: JSON.stringify({
                messages: [{ id, role: g.pick(["assistant", "system", "user"]), parts: [{ type: "text", text }] }]
              })
            }
          };
          break;
        default: // a plain new message under the stored id, with the stored transcript sent back around it
          frame = {
            ...chatRequest(text, { messageId: id, history: g.int(2) ? [] : [...before.values()].slice(0, 3) }).frame,
            id: requestId
          };
      }
      const errors = socket.frames.length;
      socket.send(frame);
      await socket.next(isDone(requestId), 30_000);
      for (const f of socket.frames.slice(errors))
        if ((f as any)?.type === "rooms_error") refusedCodes.add((f as any).code);
    }

    // No stored row changed: same role, parts and metadata under every id.
    const after = await storedRows();
    for (const [id, row] of before) expect(after.get(id), id).toEqual(row);
    expect([...refusedCodes]).toContain("conflict:message_id");
    annSocket.close();
    benSocket.close();
  });
});
