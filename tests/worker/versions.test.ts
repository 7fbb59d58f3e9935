/**
 * Edits and regenerations keep what they replace, over real sockets with
 * two signed-in people: Ann edits only her own messages, Ben's crafted
 * frames are refused and change nothing, only the latest answer can be
 * regenerated, and REST returns every version.
 */
import { describe, expect, it, vi } from "vitest";
import type { ErrorBody } from "../../src/shared/errors";
import type { MessageVersions } from "../../src/shared/protocol";
import {
  api,
  chatRequest,
  connect,
  createRoom,
  history,
  isDone,
  listedCount,
  messageText,
  roomPath,
  signIn,
  uniqueName
} from "./helpers";

// Each test holds two people and several turns; the machine is shared.
vi.setConfig({ testTimeout: 90_000 });

const historyOf = (ws: string, roomId: string) => history(ws, roomId, "?limit=200");

async function versions(ws: string, roomId: string, messageId: string) {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages/${messageId}/versions`);
  expect(response.status).toBe(200);
  return response.json<MessageVersions>();
}

async function roomWithAnnsQuestion() {
  const ws = uniqueName();
  const room = await createRoom(ws);
  const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
  const annSocket = await connect(roomPath(ws, room.id), ann.headers);
  const benSocket = await connect(roomPath(ws, room.id), ben.headers);
  const first = chatRequest("Ann's first question");
  annSocket.send(first.frame);
  await annSocket.next(isDone(first.id), 20_000);
  const second = chatRequest("Ann's second question");
  annSocket.send(second.frame);
  await annSocket.next(isDone(second.id), 20_000);
  const before = await historyOf(ws, room.id);
  expect(before.map(messageText)).toEqual([
    "Ann's first question",
    expect.any(String),
    "Ann's second question",
    expect.any(String)
  ]);
  return { ws, room, ann, ben, annSocket, benSocket, before };
}

describe("editing a message", () => {
  it("refuses Ben's edit of Ann's message, and nothing changes", async () => {
    const { ws, room, benSocket, annSocket, before } = await roomWithAnnsQuestion();
    const forged = chatRequest("Ben was here", { messageId: before[2].id });
    benSocket.send(forged.frame);
    const refusal = await benSocket.next((f) => f?.type === "rooms_error");
    expect(refusal.code).toBe("forbidden:not_author");
    await benSocket.next(isDone(forged.id));
    expect(await historyOf(ws, room.id)).toEqual(before);
    expect((await versions(ws, room.id, before[2].id)).versions).toHaveLength(1);
    annSocket.ws.close();
    benSocket.ws.close();
  });

  it("keeps Ann's original and its answer as version 1 when she edits an earlier message", async () => {
    const { ws, room, annSocket, benSocket, before } = await roomWithAnnsQuestion();
    const edit = chatRequest("Ann's first question, edited", { messageId: before[0].id });
    annSocket.send(edit.frame);
    await annSocket.next(isDone(edit.id), 20_000);
    // Ben, watching, is told the room's new transcript.
    await benSocket.next(
      (f) => f?.type === "cf_agent_chat_messages" && f.messages.some((m: any) => messageText(m).endsWith("edited"))
    );

    const after = await historyOf(ws, room.id);
    expect(after.map(messageText)).toEqual(["Ann's first question, edited", expect.any(String)]);
    expect(after[0].id).not.toBe(before[0].id);
    expect(after[0].metadata).toMatchObject({ versionOf: before[0].id, version: 2, author: { name: "Ann" } });

    // Nothing was deleted: the first version and everything after it are still there.
    const listed = await versions(ws, room.id, after[0].id);
    expect(listed.versions).toHaveLength(2);
    expect(listed.versions[0].messages.map((m) => m.id)).toEqual(before.map((m) => m.id));
    expect(listed.versions[1].messages.map((m) => m.id)).toEqual(after.map((m) => m.id));
    // The room list counts what people see, not the versions kept beside it.
    await expect.poll(() => listedCount(ws, room.id)).toBe(2);
    annSocket.ws.close();
    benSocket.ws.close();
  });
});

describe("while a turn is waiting for its answer", () => {
  it("refuses an edit sent right behind a new message, and the room keeps both turns in order", async () => {
    const { ws, room, annSocket, benSocket, before } = await roomWithAnnsQuestion();
    // Ben's question is accepted but has not started streaming when Ann's edit arrives.
    const question = chatRequest("Ben's question", { history: before });
    const edit = chatRequest("Ann's first question, edited", { messageId: before[0].id });
    benSocket.send(question.frame);
    annSocket.send(edit.frame);
    const refusal = await annSocket.next((f) => f?.type === "rooms_error");
    expect(refusal.code).toBe("conflict:not_latest");
    await benSocket.next(isDone(question.id), 20_000);
    const after = await historyOf(ws, room.id);
    expect(after.map(messageText).slice(0, 5)).toEqual([...before.map(messageText), "Ben's question"]);
    expect(after).toHaveLength(6);
    annSocket.ws.close();
    benSocket.ws.close();
  });
});

describe("regenerating an answer", () => {
  it("keeps the earlier answer as version 1 and shows the new one", async () => {
    const { ws, room, benSocket, annSocket, before } = await roomWithAnnsQuestion();
    const regenerate = chatRequest("", { trigger: "regenerate-message", history: [before[2]] });
    benSocket.send(regenerate.frame);
    await benSocket.next(isDone(regenerate.id), 20_000);

    const after = await historyOf(ws, room.id);
    expect(after.map((m) => m.id).slice(0, 3)).toEqual(before.map((m) => m.id).slice(0, 3));
    expect(after).toHaveLength(4);
    expect(after[3].id).not.toBe(before[3].id);
    expect(after[3].role).toBe("assistant");
    expect(after[3].metadata).toMatchObject({ versionOf: before[3].id, version: 2 });
    expect(messageText(after[3]).length).toBeGreaterThan(0);

    const listed = await versions(ws, room.id, after[3].id);
    expect(listed.versions.map((v) => v.messages[0].id)).toEqual([before[3].id, after[3].id]);
    expect(listed.versions[0].messages[0]).toEqual(before[3]);

    // The room goes on from the new answer.
    const next = chatRequest("and then?");
    annSocket.send(next.frame);
    await annSocket.next(isDone(next.id), 20_000);
    const later = await historyOf(ws, room.id);
    expect(later.slice(0, 4).map((m) => m.id)).toEqual(after.map((m) => m.id));
    expect(later).toHaveLength(6);
    await expect.poll(() => listedCount(ws, room.id)).toBe(6);
    annSocket.ws.close();
    benSocket.ws.close();
  });

  it("refuses to regenerate any answer but the latest, and nothing changes", async () => {
    const { ws, room, benSocket, annSocket, before } = await roomWithAnnsQuestion();
    const regenerate = chatRequest("", { trigger: "regenerate-message", history: [before[0]] });
    benSocket.send(regenerate.frame);
    const refusal = await benSocket.next((f) => f?.type === "rooms_error");
    expect(refusal.code).toBe("conflict:not_latest");
    expect(await historyOf(ws, room.id)).toEqual(before);
    annSocket.ws.close();
    benSocket.ws.close();
  });
});

describe("GET …/messages/:id/versions", () => {
  it("answers 404 for a message that is not in the room", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const response = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages/nope/versions`);
    expect(response.status).toBe(404);
    expect((await response.json<ErrorBody>()).error.code).toBe("not_found:message");
  });
});
