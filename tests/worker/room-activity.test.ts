import { describe, expect, it } from "vitest";
import { api, chatRequest, connect, createRoom, history, isDone, listedCount, roomPath, uniqueName } from "./helpers";

const historyOf = (ws: string, id: string) => history(ws, id, "?limit=100");

describe("a room's activity reports", () => {
  it("keep the room list's count to what people see through sends, a regenerate and an edit (earlier versions stay stored)", {
    timeout: 90_000
  }, async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    for (const text of ["one", "two", "three"]) {
      const response = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, { method: "POST", json: { text } });
      expect(response.status).toBe(200);
    }
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(6);

    // Regenerate the last answer: the new answer takes its place; the earlier one is kept as version 1, off the path.
    const socket = await connect(roomPath(ws, room.id));
    const before = await historyOf(ws, room.id);
    const regenerate = chatRequest("", { trigger: "regenerate-message", history: [before[4]] });
    socket.send(regenerate.frame);
    await socket.next(isDone(regenerate.id), 20_000);
    await expect.poll(async () => (await historyOf(ws, room.id)).at(-1).id, { timeout: 5_000 }).not.toBe(before[5].id);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(6);

    // Edit the second question: a new version and its answer; what followed the original stays stored, off the path.
    const edit = chatRequest("two, edited", { history: [before[0], before[1]], messageId: before[2].id });
    socket.send(edit.frame);
    await socket.next(isDone(edit.id), 20_000);
    const after = await historyOf(ws, room.id);
    expect(after.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(4);
    // Sends go on from the edit.
    const next = chatRequest("three again", { history: after });
    socket.send(next.frame);
    await socket.next(isDone(next.id), 20_000);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(6);
    socket.ws.close();
  });
});

describe("a room's in-memory window", () => {
  it("stays bounded in a long session, while storage, the count and new turns stay whole", {
    timeout: 120_000
  }, async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const long = (i: number) => `message ${i} ${"x".repeat(15_000)}`;
    // 9 turns of ~15 KB questions: past the 64 KiB window and past one window check (16 messages).
    for (let i = 0; i < 9; i++) {
      const response = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
        method: "POST",
        json: { text: long(i) }
      });
      expect(response.status).toBe(200);
    }
    const stored = await historyOf(ws, room.id);
    expect(stored).toHaveLength(18);
    expect(stored.filter((m) => m.role === "user").map((m) => m.parts[0].text)).toEqual(
      Array.from({ length: 9 }, (_, i) => long(i))
    );
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(18);

    // A turn's saves send every socket the in-memory window: a bounded tail, not the room.
    const socket = await connect(roomPath(ws, room.id));
    const watcher = await connect(roomPath(ws, room.id)); // the sender's own saves are not echoed to it
    const next = chatRequest("after the trim");
    socket.send(next.frame);
    await socket.next(isDone(next.id), 30_000);
    const snapshot = await watcher.next(
      (f) => f.type === "cf_agent_chat_messages" && f.messages.at(-1)?.role === "assistant",
      10_000
    );
    expect(snapshot.messages.length).toBeLessThan(20);
    expect(JSON.stringify(snapshot.messages).length).toBeLessThanOrEqual(64 * 1024 + 20_000);

    // And the room goes on answering, storage and count whole.
    await expect.poll(async () => (await historyOf(ws, room.id)).length, { timeout: 5_000 }).toBe(20);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(20);
  });
});
