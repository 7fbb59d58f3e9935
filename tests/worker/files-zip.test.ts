/**
 * A room's `.zip` export, against the real Worker and the local R2: the
 * JSON export as `room.json`, each file's bytes under `files/<id>/<name>`
 * and its record and index beside it, every entry's CRC right.
 */
import { describe, expect, it, vi } from "vitest";
// The Worker's modules, loaded with the file: a file run alone otherwise loads them inside its first request.
import "@/server/index";
import { crc32 } from "@/server/domain/transfer/zip-stream";
import type { FileCopy, FilePage } from "@/shared/files";
import { fileForm, PNG_BYTES } from "../support/files";
import { waitFor } from "../support/wait";
import { readZip } from "../support/zip";
import { uploadFile } from "./file-helpers";
import { api, createRoom, uniqueName } from "./helpers";

vi.setConfig({ testTimeout: 60_000 });

const roomsPath = (ws: string) => `/api/workspaces/${ws}/rooms`;

describe("a room's .zip export", () => {
  it("holds the JSON export and every file with its record and index", async () => {
    const ws = uniqueName();
    const room = await createRoom(ws, { name: "Zip me" });
    const notes = await uploadFile(ws, room.id, fileForm("# Tides\n\nHigh tide is at noon on Sundays.\n", "tides.md"));
    const picture = await uploadFile(ws, room.id, fileForm(PNG_BYTES, "chart.png"));
    await waitFor(
      async () => (await (await api(`${roomsPath(ws)}/${room.id}/files`)).json<FilePage>()).files,
      (files) => files.some((f) => f.id === notes.id && f.state === "indexed"),
      20_000,
      "the notes indexed"
    );
    const sent = await api(`${roomsPath(ws)}/${room.id}/messages`, {
      method: "POST",
      json: { text: "When is high tide?", files: [notes.id] }
    });
    expect(sent.status).toBe(200);

    const response = await api(`${roomsPath(ws)}/${room.id}/export?format=zip`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="room-.*\.zip"$/);
    const entries = readZip(new Uint8Array(await response.arrayBuffer()));
    for (const entry of entries) expect(entry.crc, entry.name).toBe(crc32(entry.bytes));
    const byName = new Map(entries.map((e) => [e.name, e.bytes]));

    const exported = JSON.parse(new TextDecoder().decode(byName.get("room.json")));
    expect(exported).toMatchObject({ format: "rooms.room-export", room: { name: "Zip me" } });
    expect(exported.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);

    expect(byName.get(`files/${picture.id}/chart.png`)).toEqual(PNG_BYTES);
    expect(new TextDecoder().decode(byName.get(`files/${notes.id}/tides.md`))).toContain("High tide is at noon");
    const copy = JSON.parse(new TextDecoder().decode(byName.get(`files/${notes.id}.json`))) as FileCopy;
    expect(copy.file).toMatchObject({ id: notes.id, name: "tides.md", sha256: notes.sha256, state: "indexed" });
    expect(copy.passages.map((p) => p.text).join("\n")).toContain("High tide is at noon on Sundays.");
    expect([...byName.keys()].sort()).toEqual(
      [
        "room.json",
        `files/${notes.id}.json`,
        `files/${notes.id}/tides.md`,
        `files/${picture.id}.json`,
        `files/${picture.id}/chart.png`
      ].sort()
    );
  });

  it("answers 404 for an unknown room, and refuses an unknown format", async () => {
    const ws = uniqueName();
    expect((await api(`${roomsPath(ws)}/nope/export?format=zip`)).status).toBe(404);
    const room = await createRoom(ws);
    expect((await api(`${roomsPath(ws)}/${room.id}/export?format=rar`)).status).toBe(400);
  });
});
