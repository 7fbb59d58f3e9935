/// <reference types="@cloudflare/vitest-plugin/types" />
/**
 * Earlier versions (what edits and regenerations replaced) travel with a
 * room: in its JSON export, in the workspace NDJSON, and back into a room on
 * import, where they are versions again.
 */
import { describe, expect, it, vi } from "vitest";
import { api, chatRequest, connect, createRoom, isDone, roomPath, signIn, uniqueName } from "./helpers";

vi.setConfig({ testTimeout: 90_000 });

type Message = {
  id: string;
  role: string;
  parts: Array<{ type: string; text?: string }>;
  metadata: Record<string, unknown>;
};
type Export = {
  room: { id: string };
  messages: Message[];
  versions?: Array<{ parentId: string | null; message: Message }>;
};

const base = (ws: string) => `/api/workspaces/${ws}/rooms`;
const textOf = (m: Message) =>
  m.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
const exportText = async (ws: string, id: string) => {
  const response = await api(`${base(ws)}/${id}/export?format=json`);
  expect(response.status).toBe(200);
  return response.text();
};

/** Every id (room, messages, versions), author ids, trace ids and the export time replaced by placeholders. */
function normalise(text: string): string {
  const data = JSON.parse(text) as Export & { exportedAt: string };
  const ids = [data.room.id, ...data.messages.map((m) => m.id), ...(data.versions ?? []).map((v) => v.message.id)];
  let out = text.replace(`"exportedAt":"${data.exportedAt}"`, '"exportedAt":"<time>"');
  ids.forEach((id, i) => {
    out = out.split(`"${id}"`).join(`"<id-${i}>"`);
  });
  return out.replace(/"author":\{"id":"[^"]*"/g, '"author":{"id":"<author>"').replace(/,"traceId":"[0-9a-f]+"/g, "");
}

async function editedRoom() {
  const ws = uniqueName();
  const room = await createRoom(ws, { name: "Edited" });
  const ann = await signIn("Ann");
  const socket = await connect(roomPath(ws, room.id), ann.headers);
  for (const text of ["first question", "second question"]) {
    const turn = chatRequest(text);
    socket.send(turn.frame);
    await socket.next(isDone(turn.id), 20_000);
  }
  const before = ((await (await api(`${base(ws)}/${room.id}/messages`)).json()) as { messages: Message[] }).messages;
  const edit = chatRequest("first question, edited", { messageId: before[0].id });
  socket.send(edit.frame);
  await socket.next(isDone(edit.id), 20_000);
  socket.ws.close();
  return { ws, room, before };
}

describe("earlier versions in exports", () => {
  it("are exported, imported as versions again, and round-trip byte-equal apart from ids and times", async () => {
    const { ws, room, before } = await editedRoom();
    const text = await exportText(ws, room.id);
    const data = JSON.parse(text) as Export;
    expect(data.messages.map(textOf)).toEqual(["first question, edited", expect.any(String)]);
    expect(data.messages[0].metadata).toMatchObject({ versionOf: before[0].id, version: 2 });
    expect(data.versions?.map((v) => [v.parentId, textOf(v.message)])).toEqual([
      [null, "first question"],
      [before[0].id, textOf(before[1])],
      [before[1].id, "second question"],
      [before[2].id, textOf(before[3])]
    ]);

    // The source goes first, so the copy keeps its name (an import of a taken name is told apart).
    expect((await api(`${base(ws)}/${room.id}`, { method: "DELETE" })).status).toBeLessThan(300);
    const imported = await api(`${base(ws)}/import`, {
      method: "POST",
      body: text,
      headers: { "content-type": "application/json" }
    });
    expect(imported.status).toBe(201);
    const copyId = ((await imported.json()) as { rooms: Array<{ id: string }> }).rooms[0].id;
    const copyText = await exportText(ws, copyId);
    expect(normalise(copyText)).toBe(normalise(text));

    // In the copy, the edited question has both versions, each with its own thread.
    const transcript = ((await (await api(`${base(ws)}/${copyId}/messages`)).json()) as { messages: Message[] })
      .messages;
    expect(transcript.map(textOf)).toEqual(["first question, edited", textOf(data.messages[1])]);
    const versions = (await (await api(`${base(ws)}/${copyId}/messages/${transcript[0].id}/versions`)).json()) as {
      versions: Array<{ messages: Message[] }>;
    };
    expect(versions.versions.map((v) => v.messages.map(textOf))).toEqual([
      ["first question", textOf(before[1]), "second question", textOf(before[3])],
      ["first question, edited", textOf(data.messages[1])]
    ]);
  });

  it("appear in the Markdown transcript in their own marked section after the current branch", async () => {
    const { ws, room } = await editedRoom();
    const response = await api(`${base(ws)}/${room.id}/export?format=markdown`);
    expect(response.status).toBe(200);
    const markdown = await response.text();
    const [transcript, earlier] = markdown.split("## Earlier versions");
    expect(earlier).toBeDefined();
    expect(transcript).toContain("first question, edited");
    expect(transcript).not.toContain("second question");
    expect(earlier).toContain("not part of the transcript above");
    expect(earlier).not.toContain("first question, edited");
    expect(earlier.indexOf("first question")).toBeGreaterThan(-1);
    expect(earlier.indexOf("second question")).toBeGreaterThan(earlier.indexOf("first question"));
    expect(earlier.match(/^### .* · earlier version$/gm)).toHaveLength(4);
  });

  it("go into the workspace NDJSON as version lines, and stay out of forks", async () => {
    const { ws, room } = await editedRoom();
    const ndjson = await (await api(`/api/workspaces/${ws}/export`)).text();
    const lines = ndjson
      .trim()
      .split("\n")
      .map(
        (line) => JSON.parse(line) as { type: string; roomId?: string; parentId?: string | null; message?: Message }
      );
    const versionLines = lines.filter((l) => l.type === "version" && l.roomId === room.id);
    expect(versionLines.map((l) => textOf(l.message as Message))).toEqual([
      "first question",
      expect.any(String),
      "second question",
      expect.any(String)
    ]);
    const data = JSON.parse(await exportText(ws, room.id)) as Export;
    const fork = await api(`${base(ws)}/${room.id}/fork`, { method: "POST", json: { messageId: data.messages[1].id } });
    expect(fork.status).toBe(201);
    const forked = JSON.parse(await exportText(ws, ((await fork.json()) as { id: string }).id)) as Export;
    expect(forked.messages.map(textOf)).toEqual(data.messages.map(textOf));
    expect(forked.versions).toBeUndefined();
  });

  it("refuse a version whose parent is not in the file, naming it, and make no room", async () => {
    const { ws, room } = await editedRoom();
    const data = JSON.parse(await exportText(ws, room.id)) as Export;
    const count = async () => ((await (await api(base(ws))).json()) as { rooms: unknown[] }).rooms.length;
    const before = await count();
    for (const versions of [
      [{ parentId: "nowhere", message: data.versions?.[0].message }],
      [{ parentId: null, message: { id: "x", role: "robot", parts: [] } }],
      "many"
    ]) {
      const response = await api(`${base(ws)}/import`, {
        method: "POST",
        body: JSON.stringify({ ...data, versions }),
        headers: { "content-type": "application/json" }
      });
      expect(response.status, JSON.stringify(versions).slice(0, 80)).toBe(422);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^versions/);
    }
    expect(await count()).toBe(before);
  });
});
