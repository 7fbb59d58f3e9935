import { describe, expect, it } from "vitest";
import { chatRequest, isDone, textOf } from "../support/chat-protocol";
import { restClient } from "../support/rest-client";
import { useSharedApp } from "../support/shared-app";
import { openSocket } from "../support/socket";
import { uniqueName, waitFor } from "../support/wait";

// The real app with no provider configured: the offline model answers.
const app = useSharedApp({ provider: "offline" });

describe("a room's life through the running app", () => {
  it("creates, joins, talks, deletes, and then refuses the rejoin with 4404", async () => {
    const api = app.api;
    const list = await openSocket(api.listSocketUrl());
    await list.next((f) => f.type === "rooms");

    const room = await api.createRoom({ name: "Lifecycle" });
    await list.next((f) => f.type === "room_upserted" && f.room.id === room.id);

    const socket = await openSocket(api.roomSocketUrl(room.id));
    const { id, frame } = chatRequest("hello from a script", { author: "curl" });
    socket.send(frame);
    await socket.next(isDone(id), 20_000);
    expect(textOf(socket.frames, id)).toContain("hello from a script");

    const history = await api.messages(room.id);
    expect(history.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    await list.next((f) => f.type === "room_upserted" && f.room.id === room.id && f.room.messageCount === 2);

    expect((await api.call(`/${room.id}`, { method: "DELETE" })).status).toBe(204);
    await list.next((f) => f.type === "room_deleted" && f.id === room.id);
    const closed = await socket.closed;
    expect(closed.code).not.toBe(1000);

    const rejoin = await openSocket(api.roomSocketUrl(room.id));
    expect((await rejoin.closed).code).toBe(4404);
    expect((await api.call(`/${room.id}`, { method: "DELETE" })).status).toBe(404);
    list.close();
  });

  it("serves the app's HTML for a room deep link", async () => {
    const api = app.api;
    const room = await api.createRoom();
    for (const path of [`/sub/chat-room/${room.id}`, "/sub/chat-room/unknown-room-id", "/"]) {
      const response = await fetch(`${app.url}${path}`, { headers: { accept: "text/html" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/text\/html/);
      const html = await response.text();
      expect(html).toContain('<div id="root">');
    }
  });

  it("answers REST sends as JSON and as server-sent events", async () => {
    const api = app.api;
    const room = await api.createRoom({ name: "Scriptable" });
    const watcher = await openSocket(api.roomSocketUrl(room.id));

    const json = await api.send(room.id, "first by REST", "cron");
    expect(json.status).toBe(200);
    expect(json.body.status).toBe("completed");
    // Not signed in, on a server without a token: the anonymous API identity,
    // whatever name the body claimed.
    expect(json.body.userMessage.metadata.author).toEqual({ id: "api", name: "API" });
    expect(
      json.body.assistantMessage.parts.some((p: any) => p.type === "text" && p.text.includes("first by REST"))
    ).toBe(true);

    const response = await api.call(`/${room.id}/messages`, {
      method: "POST",
      json: { text: "second by SSE" },
      headers: { accept: "text/event-stream" }
    });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = (await response.text())
      .trim()
      .split("\n\n")
      .map((block) => ({
        event: /^event: (.*)$/m.exec(block)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null")
      }));
    expect(events[0].event).toBe("user-message");
    const deltas = events.filter((e) => e.event === "chunk" && e.data.type === "text-delta");
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((e) => e.data.delta).join("")).toContain("second by SSE");
    expect(events.at(-1)).toMatchObject({ event: "done", data: { status: "completed" } });

    // Everyone in the room saw both exchanges live.
    const doneFrames = async () =>
      watcher.frames.filter((f) => f.type === "cf_agent_use_chat_response" && f.done).length;
    await waitFor(doneFrames, (n) => n >= 2);
    watcher.close();
    const history = await api.messages(room.id);
    expect(history.messages).toHaveLength(4);
  });

  it("keeps workspaces apart over WebSockets too", async () => {
    const a = restClient(app.url, { workspace: uniqueName("wa") });
    const room = await a.createRoom();
    const b = restClient(app.url, { workspace: uniqueName("wb") });
    const intruder = await openSocket(b.roomSocketUrl(room.id));
    expect((await intruder.closed).code).toBe(4404);
  });
});
