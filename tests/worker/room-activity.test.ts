import { describe, expect, it } from "vitest";
import { api, chatRequest, connect, createRoom, isDone, roomPath, uniqueName } from "./helpers";

const listedCount = async (ws: string, id: string) =>
  ((await (await api(`/api/workspaces/${ws}/rooms`)).json<any>()).rooms as any[]).find((r) => r.id === id)
    ?.messageCount;
const history = async (ws: string, id: string) =>
  (await (await api(`/api/workspaces/${ws}/rooms/${id}/messages?limit=100`)).json<any>()).messages as any[];

describe("a room's activity reports", () => {
  it("keep the room list's count exact through sends, a regenerate and an edit", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    for (const text of ["one", "two", "three"]) {
      const response = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, { method: "POST", json: { text } });
      expect(response.status).toBe(200);
    }
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(6);

    // Regenerate the last answer: its row is replaced, not added to.
    const socket = await connect(roomPath(ws, room.id));
    const before = await history(ws, room.id);
    const regenerate = chatRequest("", { trigger: "regenerate-message", history: [before[4]] });
    socket.send(regenerate.frame);
    await socket.next(isDone(regenerate.id), 20_000);
    await expect.poll(async () => (await history(ws, room.id)).at(-1).id, { timeout: 5_000 }).not.toBe(before[5].id);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(6);

    // Edit the second question: everything after it goes, a new answer comes.
    const edit = chatRequest("two, edited", { history: [before[0], before[1]], messageId: before[2].id });
    socket.send(edit.frame);
    await socket.next(isDone(edit.id), 20_000);
    const after = await history(ws, room.id);
    expect(after.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    await expect.poll(() => listedCount(ws, room.id), { timeout: 5_000 }).toBe(after.length);
  });
});
