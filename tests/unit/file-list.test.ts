import { describe, expect, it } from "vitest";
import { applyFileFrame, fileStateText, readFileFrame } from "@/client/lib/file-list";
import type { RoomFile } from "@/shared/files";

const file = (id: string, over: Partial<RoomFile> = {}): RoomFile => ({
  id,
  name: `${id}.pdf`,
  contentType: "application/pdf",
  kind: "pdf",
  size: 10,
  sha256: "0".repeat(64),
  author: { id: "u1", name: "Ann" },
  createdAt: 1,
  state: "indexing",
  progress: null,
  pages: null,
  chunks: 0,
  error: null,
  ...over
});

describe("a room's file list from the socket's frames", () => {
  it("reads only file frames", () => {
    expect(readFileFrame(JSON.stringify({ type: "rooms_file", file: file("f1") }))).toMatchObject({
      type: "rooms_file"
    });
    expect(readFileFrame(JSON.stringify({ type: "rooms_file_deleted", id: "f1" }))).toEqual({
      type: "rooms_file_deleted",
      id: "f1"
    });
    expect(readFileFrame(JSON.stringify({ type: "rooms_presence", users: [] }))).toBeNull();
    expect(readFileFrame('{"type":"rooms_file"')).toBeNull();
    expect(readFileFrame(JSON.stringify({ type: "rooms_file", file: {} }))).toBeNull();
  });

  it("puts a new file first, changes one in place and drops a deleted one", () => {
    const list = [file("b"), file("a")];
    expect(applyFileFrame(list, { type: "rooms_file", file: file("c") }).map((f) => f.id)).toEqual(["c", "b", "a"]);
    const changed = applyFileFrame(list, { type: "rooms_file", file: file("a", { state: "indexed", chunks: 3 }) });
    expect(changed.map((f) => [f.id, f.state])).toEqual([
      ["b", "indexing"],
      ["a", "indexed"]
    ]);
    expect(applyFileFrame(list, { type: "rooms_file_deleted", id: "b" }).map((f) => f.id)).toEqual(["a"]);
  });

  it("says what extraction is doing", () => {
    expect(fileStateText(file("a", { progress: { done: 3, total: 10 } }))).toBe("Indexing… 3 of 10 pages");
    expect(fileStateText(file("a", { state: "indexed", chunks: 1 }))).toBe("Indexed · 1 passage");
    expect(fileStateText(file("a", { state: "failed", error: "The PDF is encrypted." }))).toBe(
      "Could not be read: The PDF is encrypted."
    );
    expect(fileStateText(file("a", { kind: "image", state: "stored" }))).toBe("Stored");
  });
});
