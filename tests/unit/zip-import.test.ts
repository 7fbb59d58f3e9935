import { describe, expect, it } from "vitest";
import { importRefusal } from "@/server/domain/files/file-limits";
import type { ImportedRoom } from "@/server/domain/transfer/imported-room";
import { planArchive, restoredCopy, withFileIds } from "@/server/domain/transfer/zip-import";
import type { ZipDirectoryEntry } from "@/server/domain/transfer/zip-read";
import type { ArchivedFileCopy } from "@/shared/files";

const OLD = "f_AAAAAAAAAAAAAAAA";
const NEW = "f_BBBBBBBBBBBBBBBB";
const entry = (name: string, size = 1): ZipDirectoryEntry => ({
  name,
  method: 0,
  crc: 0,
  compressedSize: size,
  size,
  localOffset: 0
});
const SHA = "a".repeat(64);
const record = (over: Partial<ArchivedFileCopy["file"]> = {}): ArchivedFileCopy => ({
  file: {
    name: "notes.md",
    sha256: SHA,
    state: "indexed",
    createdAt: 1000,
    author: { name: "Ann" },
    pages: 3,
    ...over
  },
  firstLine: "# Notes",
  passages: [{ text: "# Notes\nhello", lineFrom: 1, lineTo: 2 }]
});
const textBytes = { size: 10, sha256: SHA, contentType: "text/markdown; charset=utf-8", kind: "text" as const };

describe("a room's .zip, planned for import", () => {
  it("pairs each file with its record and passes over folders and strays", () => {
    const plan = planArchive([
      entry("room.json"),
      entry("files/"),
      entry(`files/${OLD}.json`),
      entry(`files/${OLD}/notes.md`, 10),
      entry("__MACOSX/._room.json")
    ]);
    expect(plan.transcript.name).toBe("room.json");
    expect(plan.files).toEqual([
      { oldId: OLD, name: "notes.md", data: entry(`files/${OLD}/notes.md`, 10), record: entry(`files/${OLD}.json`) }
    ]);
  });

  it("refuses an archive without room.json, a record without its file, and two files under one id", () => {
    expect(() => planArchive([entry("notes.md")])).toThrow(/no room.json/);
    expect(() => planArchive([entry("room.json"), entry(`files/${OLD}.json`)])).toThrow(/has no file beside it/);
    expect(() => planArchive([entry("room.json"), entry(`files/${OLD}/a`), entry(`files/${OLD}/b`)])).toThrow(
      /more than one file/
    );
  });

  it("keeps the record's name, time and index under a new id, the type and hash from the bytes", () => {
    const [file] = planArchive([entry("room.json"), entry(`files/${OLD}/notes.md`)]).files;
    if (!file) throw new Error("no file");
    const copy = restoredCopy(NEW, file, record(), textBytes, 5000);
    expect(copy.file).toMatchObject({
      id: NEW,
      name: "notes.md",
      contentType: "text/markdown; charset=utf-8",
      author: { id: "imported", name: "Ann" },
      createdAt: 1000,
      state: "indexed",
      chunks: 1,
      pages: 3,
      error: null
    });
    expect(copy.passages).toHaveLength(1);
    // A time in the future is now; no record means no index.
    expect(restoredCopy(NEW, file, record({ createdAt: 9999 }), textBytes, 5000).file.createdAt).toBe(5000);
    const bare = restoredCopy(NEW, file, null, textBytes, 5000);
    expect(bare.file).toMatchObject({ state: "failed", chunks: 0, author: { id: "imported", name: "Imported" } });
    expect(bare.passages).toEqual([]);
    // An image is stored, whatever its record says.
    const image = { ...textBytes, contentType: "image/png", kind: "image" as const };
    expect(restoredCopy(NEW, file, record({ sha256: SHA }), image, 5000).file).toMatchObject({
      state: "stored",
      chunks: 0,
      error: null
    });
  });

  it("refuses a record that describes other bytes", () => {
    const [file] = planArchive([entry("room.json"), entry(`files/${OLD}/notes.md`)]).files;
    if (!file) throw new Error("no file");
    expect(() => restoredCopy(NEW, file, record({ sha256: "b".repeat(64) }), textBytes, 5000)).toThrow(
      /describes other bytes/
    );
  });

  it("points the messages' file parts at the new ids, and leaves unknown ones", () => {
    const part = (id: string) => ({
      type: "file",
      mediaType: "text/markdown",
      filename: "x",
      url: `/api/rooms/r/files/${id}`
    });
    const other = "f_CCCCCCCCCCCCCCCC";
    const room = {
      settings: { name: "R", systemPrompt: "", model: null, temperature: null },
      personas: [],
      messages: [
        { id: "m1", role: "user", parts: [{ type: "text", text: "hi" }, part(OLD), part(other)], metadata: {} }
      ],
      versions: [{ parentId: "m1", message: { id: "m2", role: "user", parts: [part(OLD)], metadata: {} } }]
    } as ImportedRoom;
    const moved = withFileIds(room, new Map([[OLD, NEW]]));
    expect(moved.messages[0]?.parts.map((p) => p.url)).toEqual([
      undefined,
      `/api/rooms/imported/files/${NEW}`,
      `/api/rooms/imported/files/${other}`
    ]);
    expect(moved.versions[0]?.message.parts[0]?.url).toBe(`/api/rooms/imported/files/${NEW}`);
  });
});

describe("an import's files against the limits", () => {
  const limits = { maxFileBytes: 100, roomQuotaBytes: 250, workspaceQuotaBytes: 1000 };
  it("passes what fits, and names the limit a file or the lot passes", () => {
    expect(importRefusal(limits, 0, [])).toBeNull();
    expect(importRefusal(limits, 700, [100, 100, 50])).toBeNull();
    expect(importRefusal(limits, 0, [101])?.code).toBe("payload_too_large:file");
    expect(importRefusal(limits, 0, [100, 100, 51])?.message).toMatch(/more than a room's/);
    expect(importRefusal(limits, 800, [100, 101 - 1, 1])).toMatchObject({
      code: "payload_too_large:quota",
      message: expect.stringMatching(/^Importing/)
    });
  });
});
