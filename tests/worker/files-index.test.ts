/**
 * Documents in a room, inside workerd with the local R2: text and PDFs are
 * extracted by the Worker after the upload answered, indexed in the room's
 * SQLite (FTS5), and a question finds the passage: the answer (the offline
 * model here; the provider's request is checked in the integration layer)
 * cites it with a source-document part that names the file and the page.
 * A document that cannot be read is kept and says why.
 */
import { describe, expect, it, vi } from "vitest";
import type { FilePage, RoomFile } from "@/shared/files";
import { fileForm, makePdf, PNG_BYTES } from "../support/files";
import { waitFor } from "../support/wait";
import {
  api,
  BASE,
  chatRequest,
  connect,
  createRoom,
  fetchWorker,
  history,
  isDone,
  roomPath,
  uniqueName
} from "./helpers";

vi.setConfig({ testTimeout: 60_000 });

const filesPath = (ws: string, roomId: string) => `/api/workspaces/${ws}/rooms/${roomId}/files`;

async function upload(ws: string, roomId: string, form: FormData): Promise<RoomFile> {
  const response = await fetchWorker(new Request(`${BASE}${filesPath(ws, roomId)}`, { method: "POST", body: form }));
  if (response.status !== 201) throw new Error(`upload failed ${response.status}: ${await response.text()}`);
  return (await response.json<{ file: RoomFile }>()).file;
}

async function settled(ws: string, roomId: string, fileId: string): Promise<RoomFile> {
  const page = await waitFor(
    async () => (await api(filesPath(ws, roomId))).json<FilePage>(),
    (p) => p.files.some((f) => f.id === fileId && f.state !== "indexing"),
    20_000,
    `file ${fileId} indexed or failed`
  );
  return page.files.find((f) => f.id === fileId) as RoomFile;
}

async function ask(ws: string, roomId: string, text: string) {
  const response = await api(`/api/workspaces/${ws}/rooms/${roomId}/messages`, { method: "POST", json: { text } });
  expect(response.status).toBe(200);
  return (await history(ws, roomId)).at(-1);
}

const SECOND_PAGE = "The quarterly zeppelin inspection found three loose rivets on the starboard fin.";

describe("documents in a room's index", () => {
  it("extracts a PDF page by page, and an answer cites the passage on page 2", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const pdf = makePdf([["Cover page of the maintenance log.", "Nothing else here."], [SECOND_PAGE]]);
    const file = await upload(ws, room.id, fileForm(pdf, "log.pdf", "application/pdf"));
    expect(file).toMatchObject({ kind: "pdf", contentType: "application/pdf", state: "indexing" });
    expect(await settled(ws, room.id, file.id)).toMatchObject({ state: "indexed", pages: 2, chunks: 2, error: null });

    const answer = await ask(ws, room.id, "What did the zeppelin inspection find?");
    const text = answer.parts
      .filter((p: any) => p.type === "text")
      .map((p: any) => p.text)
      .join("");
    expect(text).toContain("log.pdf, page 2** [1]");
    expect(text).toContain("zeppelin inspection found three loose rivets");
    const source = answer.parts.find((p: any) => p.type === "source-document");
    expect(source).toMatchObject({
      title: "log.pdf, page 2",
      mediaType: "application/pdf",
      filename: "log.pdf",
      providerMetadata: { rooms: { fileId: file.id, page: 2, n: 1 } }
    });
  });

  it("indexes text by lines and finds it; a question about nothing in the files cites nothing", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const lines = Array.from({ length: 200 }, (_, i) => `Row ${i + 1}: ordinary filler text about gardening.`);
    lines[150] = "Row 151: the secret ingredient is cardamom.";
    const file = await upload(ws, room.id, fileForm(lines.join("\n"), "notes.md"));
    const indexed = await settled(ws, room.id, file.id);
    expect(indexed).toMatchObject({ state: "indexed", pages: 200 });
    expect(indexed.chunks).toBeGreaterThan(3);

    const answer = await ask(ws, room.id, "Which secret ingredient?");
    const source = answer.parts.find((p: any) => p.type === "source-document");
    expect(source.providerMetadata.rooms.fileId).toBe(file.id);
    expect(source.providerMetadata.rooms.lineFrom).toBeLessThanOrEqual(151);
    expect(source.providerMetadata.rooms.lineTo).toBeGreaterThanOrEqual(151);

    const unrelated = await ask(ws, room.id, "Quantum chromodynamics?");
    expect(unrelated.parts.some((p: any) => p.type === "source-document")).toBe(false);
  });

  it("keeps a PDF it cannot read and says why: encrypted, damaged, or no text", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const encrypted = await upload(ws, room.id, fileForm(makePdf([["secret"]], { encrypt: true }), "locked.pdf"));
    const broken = await upload(ws, room.id, fileForm("%PDF-1.7\nthis is not really a pdf", "broken.pdf"));
    const empty = await upload(ws, room.id, fileForm(makePdf([[]]), "scan.pdf"));
    expect(await settled(ws, room.id, encrypted.id)).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/encrypted/)
    });
    expect(await settled(ws, room.id, broken.id)).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/damaged|not a valid PDF|could not be extracted|no text/)
    });
    expect(await settled(ws, room.id, empty.id)).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/no text/)
    });
    for (const id of [encrypted.id, broken.id, empty.id]) {
      expect((await api(`${filesPath(ws, room.id)}/${id}`)).status).toBe(200);
    }
  });

  it("drops a deleted file's passages: the question no longer finds them", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const file = await upload(ws, room.id, fileForm("The password hint is periwinkle.", "hint.txt"));
    await settled(ws, room.id, file.id);
    expect(
      (await ask(ws, room.id, "What is the periwinkle hint?")).parts.some((p: any) => p.type === "source-document")
    ).toBe(true);
    expect((await api(`${filesPath(ws, room.id)}/${file.id}`, { method: "DELETE" })).status).toBe(204);
    expect(
      (await ask(ws, room.id, "What is the periwinkle hint?")).parts.some((p: any) => p.type === "source-document")
    ).toBe(false);
  });
});

describe("messages that carry files", () => {
  it("carries this room's files by id over REST, tells the model what they are, and refuses another room's", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const other = await createRoom(ws);
    const image = await upload(ws, room.id, fileForm(PNG_BYTES, "shot.png"));
    const memo = "Budget memo\nThe budget is 40 pounds.";
    const doc = await upload(ws, room.id, fileForm(memo, "memo.txt"));
    await settled(ws, room.id, doc.id);
    const foreign = await upload(ws, other.id, fileForm(PNG_BYTES, "theirs.png"));

    const sent = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "Look at these", files: [image.id, doc.id] }
    });
    expect(sent.status).toBe(200);
    const { userMessage, assistantMessage } = await sent.json<any>();
    expect(userMessage.parts.filter((p: any) => p.type === "file")).toEqual([
      {
        type: "file",
        mediaType: "image/png",
        filename: "shot.png",
        url: `/api/workspaces/${ws}/rooms/${room.id}/files/${image.id}`
      },
      {
        type: "file",
        mediaType: "text/plain",
        filename: "memo.txt",
        url: `/api/workspaces/${ws}/rooms/${room.id}/files/${doc.id}`
      }
    ]);
    // The offline model quotes what it was given: each file by name, the document's first line.
    const answer = assistantMessage.parts.map((p: any) => p.text ?? "").join("");
    expect(answer).toContain(
      `[Attached: shot.png (image, ${PNG_BYTES.length} bytes); this model does not read images]`
    );
    expect(answer).toContain(`memo.txt (text, ${memo.length} bytes), which begins: "Budget memo"`);

    const refused = await api(`/api/workspaces/${ws}/rooms/${room.id}/messages`, {
      method: "POST",
      json: { text: "Not mine", files: [foreign.id] }
    });
    expect(refused.status).toBe(404);
    expect((await refused.json<any>()).error.code).toBe("not_found:file");
  });

  it("accepts a socket's file part only for a file of this room, and stores the room's own description of it", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws);
    const other = await createRoom(ws);
    const mine = await upload(ws, room.id, fileForm(PNG_BYTES, "mine.png"));
    const theirs = await upload(ws, other.id, fileForm(PNG_BYTES, "theirs.png"));
    const socket = await connect(roomPath(ws, room.id));
    const forged = chatRequest("see", {
      parts: [
        { type: "file", url: `/api/workspaces/${ws}/rooms/${other.id}/files/${theirs.id}`, mediaType: "image/png" }
      ]
    });
    socket.send(forged.frame);
    const error = await socket.next((f) => f?.type === "rooms_error");
    expect(error.code).toBe("not_found:file");

    const ok = chatRequest("see mine", {
      parts: [
        {
          type: "file",
          url: `/api/workspaces/${ws}/rooms/${room.id}/files/${mine.id}`,
          mediaType: "text/html",
          filename: "evil.html"
        }
      ]
    });
    socket.send(ok.frame);
    await socket.next(isDone(ok.id), 30_000);
    const stored = (await history(ws, room.id)).find((m: any) => m.id === ok.message.id);
    expect(stored.parts[1]).toEqual({
      type: "file",
      mediaType: "image/png",
      filename: "mine.png",
      url: `/api/workspaces/${ws}/rooms/${room.id}/files/${mine.id}`
    });
    socket.ws.close();
  });
});
