/**
 * A room's files, in the room's own SQLite: each file's record (the bytes
 * live in R2; the Worker writes them, see files/store-upload.ts) and, once
 * indexed, its passages (room/room-file-index.ts). Everyone in the room hears of
 * a file as it appears, changes (indexing progress) and goes
 * (`rooms_file`, `rooms_file_deleted`), so every open Files panel is live.
 */

import { AppError } from "@/server/app-error";
import type { RetrievedPassage } from "@/server/domain/files/file-context";
import type { PassageBatch } from "@/server/domain/files/text-passages";
import {
  type FileCopy,
  type FileKind,
  type FilePage,
  type FileRef,
  type FileState,
  fileUrl,
  type NewFile,
  type RoomFile,
  type RoomFilesFrame
} from "@/shared/files";
import type { MessageAuthor } from "@/shared/identity";
import { RoomFileIndex } from "./room-file-index";

type FileRow = {
  id: string;
  name: string;
  content_type: string;
  kind: string;
  size: number;
  sha256: string;
  author_id: string;
  author_name: string;
  created_at: number;
  state: string;
  progress_done: number | null;
  progress_total: number | null;
  pages: number | null;
  chunks: number;
  error: string | null;
};

/** What the room's files need from the room. */
export interface FilesHost {
  sql: SqlStorage;
  broadcast(message: string): void;
}

const fileNotFound = (id: string) =>
  new AppError("not_found:file", 404, `File "${id}" is not in this room, or was deleted.`);

function toFile(row: FileRow): RoomFile {
  return {
    id: row.id,
    name: row.name,
    contentType: row.content_type,
    kind: row.kind as FileKind,
    size: row.size,
    sha256: row.sha256,
    author: { id: row.author_id, name: row.author_name },
    createdAt: row.created_at,
    state: row.state as FileState,
    progress:
      row.state === "indexing" && row.progress_total !== null
        ? { done: row.progress_done ?? 0, total: row.progress_total }
        : null,
    pages: row.pages,
    chunks: row.chunks,
    error: row.error
  };
}

function firstLineOf(passages: readonly { text: string }[]): string | null {
  for (const p of passages) {
    const line = p.text.split("\n").find((l) => l.trim());
    if (line) return line.trim().slice(0, 200);
  }
  return null;
}

export class RoomFiles {
  readonly #index: RoomFileIndex;

  constructor(private readonly host: FilesHost) {
    this.#index = new RoomFileIndex(host.sql);
    host.sql.exec(`CREATE TABLE IF NOT EXISTS room_files (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      content_type TEXT NOT NULL,
      kind TEXT NOT NULL,
      size INTEGER NOT NULL,
      sha256 TEXT NOT NULL,
      author_id TEXT NOT NULL,
      author_name TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      state TEXT NOT NULL,
      progress_done INTEGER,
      progress_total INTEGER,
      pages INTEGER,
      chunks INTEGER NOT NULL DEFAULT 0,
      error TEXT
    )`);
    // Added after the table: the first line of a document's text, which a turn names with the file.
    try {
      host.sql.exec("ALTER TABLE room_files ADD COLUMN first_line TEXT");
    } catch {
      // already there
    }
    host.sql.exec("CREATE INDEX IF NOT EXISTS room_files_by_time ON room_files (created_at DESC, id DESC)");
  }

  /** Records a file the Worker stored. Documents start `indexing`, images are `stored`. */
  add(file: NewFile, now: number): RoomFile {
    const state: FileState = file.kind === "image" ? "stored" : "indexing";
    this.host.sql.exec(
      `INSERT INTO room_files (id, name, content_type, kind, size, sha256, author_id, author_name, created_at, state)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      file.id,
      file.name,
      file.contentType,
      file.kind,
      file.size,
      file.sha256,
      file.author.id,
      file.author.name,
      now,
      state
    );
    const stored = this.require(file.id);
    this.#announce({ type: "rooms_file", file: stored });
    return stored;
  }

  get(id: string): RoomFile | null {
    const row = this.host.sql.exec<FileRow>("SELECT * FROM room_files WHERE id = ?", id).toArray()[0];
    return row ? toFile(row) : null;
  }

  require(id: string): RoomFile {
    const file = this.get(id);
    if (!file) throw fileNotFound(id);
    return file;
  }

  /** Newest first, a page at a time (like history). */
  list(before: string | undefined, limit: number): FilePage {
    let rows: FileRow[];
    if (before) {
      const cursor = this.require(before);
      rows = this.host.sql
        .exec<FileRow>(
          `SELECT * FROM room_files WHERE (created_at, id) < (?, ?)
           ORDER BY created_at DESC, id DESC LIMIT ?`,
          cursor.createdAt,
          cursor.id,
          limit + 1
        )
        .toArray();
    } else {
      rows = this.host.sql
        .exec<FileRow>("SELECT * FROM room_files ORDER BY created_at DESC, id DESC LIMIT ?", limit + 1)
        .toArray();
    }
    const page = rows.slice(0, limit).map(toFile);
    return {
      files: page,
      nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      usage: this.usage()
    };
  }

  usage(): { bytes: number; files: number } {
    const row = this.host.sql
      .exec<{ bytes: number | null; files: number }>("SELECT SUM(size) AS bytes, COUNT(*) AS files FROM room_files")
      .one();
    return { bytes: row.bytes ?? 0, files: row.files };
  }

  /**
   * Removes a file's record and passages; answers it, so the caller can
   * delete its bytes. Only its author may, or whoever the overseer says may
   * remove anyone's (`anyone`: the room's owner and admins, shared/permissions.ts).
   */
  delete(id: string, by: MessageAuthor, anyone = false): RoomFile {
    const file = this.require(id);
    if (file.author.id !== by.id && !anyone) {
      throw new AppError(
        "forbidden:not_author",
        403,
        "Only the person who added a file, the room's owner or a workspace admin may delete it."
      );
    }
    this.host.sql.exec("DELETE FROM room_files WHERE id = ?", id);
    this.#index.deleteFile(id);
    this.#announce({ type: "rooms_file_deleted", id });
    return file;
  }

  /**
   * Adds a batch of passages of a file being indexed; false when the file
   * is gone (deleted meanwhile), so the extraction stops.
   */
  addPassages(id: string, batch: PassageBatch): boolean {
    const file = this.get(id);
    if (!file || file.state !== "indexing") return false;
    this.#index.add(id, batch.passages);
    this.host.sql.exec(
      `UPDATE room_files SET chunks = chunks + ?, progress_done = ?, progress_total = ?,
       pages = COALESCE(?, pages), state = ?, first_line = COALESCE(first_line, ?) WHERE id = ?`,
      batch.passages.length,
      batch.done,
      batch.total,
      batch.pages ?? null,
      batch.last ? "indexed" : "indexing",
      firstLineOf(batch.passages),
      id
    );
    this.#announce({ type: "rooms_file", file: this.require(id) });
    return true;
  }

  /** Extraction failed: the file stays (downloadable), unsearchable, and says why. */
  failIndex(id: string, reason: string) {
    const file = this.get(id);
    if (!file || file.state !== "indexing") return;
    this.#index.deleteFile(id);
    this.host.sql.exec(
      "UPDATE room_files SET state = 'failed', error = ?, chunks = 0 WHERE id = ?",
      reason.slice(0, 500),
      id
    );
    this.#announce({ type: "rooms_file", file: this.require(id) });
  }

  /** The first line of an indexed file's text (what a turn says of an attached document). */
  firstLine(id: string): string | null {
    return (
      this.host.sql
        .exec<{ first_line: string | null }>("SELECT first_line FROM room_files WHERE id = ?", id)
        .toArray()[0]?.first_line ?? null
    );
  }

  /** Files added no later than `until` (all when null), oldest first: what a fork copies. */
  upTo(until: number | null): RoomFile[] {
    return this.host.sql
      .exec<FileRow>(
        "SELECT * FROM room_files WHERE created_at <= ? ORDER BY created_at, id",
        until ?? Number.MAX_SAFE_INTEGER
      )
      .toArray()
      .map(toFile);
  }

  /** A file's record and index, to copy into another room (its bytes are copied in R2 by the overseer). */
  copyOut(id: string): FileCopy {
    const file = this.require(id);
    return { file, firstLine: this.firstLine(id), passages: this.#index.passagesOf(id) };
  }

  /**
   * A copy of another room's file, with its id, author and time. One still
   * being read there is kept as failed (its reading does not follow it here):
   * upload it again to search it.
   */
  copyIn({ file, firstLine, passages }: FileCopy) {
    if (this.get(file.id)) throw new AppError("conflict:file", 409, `File "${file.id}" is already in this room.`);
    const unfinished = file.state === "indexing";
    this.host.sql.exec(
      `INSERT INTO room_files (id, name, content_type, kind, size, sha256, author_id, author_name, created_at, state,
       pages, chunks, error, first_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      file.id,
      file.name,
      file.contentType,
      file.kind,
      file.size,
      file.sha256,
      file.author.id,
      file.author.name,
      file.createdAt,
      unfinished ? "failed" : file.state,
      file.pages,
      unfinished ? 0 : passages.length,
      unfinished ? "It was still being read when the room was copied; upload it again to search it." : file.error,
      firstLine
    );
    if (!unfinished) this.#index.add(file.id, passages);
  }

  /** A message's part naming this file (its route is the url; shared/files.ts). */
  ref(workspace: string, roomId: string, file: RoomFile): FileRef {
    return {
      type: "file",
      mediaType: file.contentType.split(";")[0]?.trim() || "application/octet-stream",
      filename: file.name,
      url: fileUrl(workspace, roomId, file.id)
    };
  }

  /** The passages a question retrieves (room/room-file-index.ts). */
  retrieve(question: string, limit: number, attached: readonly string[] = []): RetrievedPassage[] {
    return this.#index.search(question, limit, attached);
  }

  /** Whether the room has any indexed passage: a turn in a room without documents skips retrieval. */
  hasPassages(): boolean {
    return (
      this.host.sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM (SELECT 1 FROM room_files WHERE chunks > 0 LIMIT 1)")
        .one().n > 0
    );
  }

  #announce(frame: RoomFilesFrame) {
    this.host.broadcast(JSON.stringify(frame));
  }
}
