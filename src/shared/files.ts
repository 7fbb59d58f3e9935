/**
 * Files in a room, as every wire carries them: REST bodies, the room's
 * `rooms_files` frames and file parts of messages. Browser-safe.
 */
import { z } from "zod";
import { DEFAULT_PAGE_SIZE, MAX_FILES_PER_MESSAGE, MAX_PAGE_SIZE } from "./constants";
import type { MessageAuthor } from "./identity";

/** A file id: what `POST …/files` answers; never a client's choice. */
export const FILE_ID_PATTERN = /^f_[A-Za-z0-9_-]{16}$/;
const FileId = z.string().regex(FILE_ID_PATTERN, "a file id looks like f_ and 16 letters, digits, _ or -");

/**
 * Where a file is in its life: `stored` (bytes kept, nothing to index: images),
 * `indexing` (text being extracted), `indexed`, or `failed` (kept, not
 * searchable; `error` says why).
 */
export type FileState = "stored" | "indexing" | "indexed" | "failed";

/** What kind of thing the bytes are, decided from the bytes (domain/files/file-types.ts). */
export type FileKind = "image" | "pdf" | "text";

export interface RoomFile {
  id: string;
  name: string;
  contentType: string;
  kind: FileKind;
  size: number;
  /** Lowercase hex of the bytes' SHA-256. */
  sha256: string;
  author: MessageAuthor;
  createdAt: number;
  state: FileState;
  /** While indexing: units (pages of a PDF, lines of text) done of the total. */
  progress: { done: number; total: number } | null;
  /** A PDF's page count, a text's line count, once known. */
  pages: number | null;
  /** Passages in the room's index. */
  chunks: number;
  /** Why extraction failed (state `failed`). */
  error: string | null;
}

/** A new file's record as the Worker registers it with its room (through the overseer). */
export type NewFile = Pick<RoomFile, "id" | "name" | "contentType" | "kind" | "size" | "sha256" | "author">;

export interface FilePage {
  files: RoomFile[];
  /** Pass as `before` for the next older page; null when this is the oldest. */
  nextCursor: string | null;
  /** What the room's files take (bytes) and how many there are. */
  usage: { bytes: number; files: number };
}

export const FilesQuery = z.strictObject({
  before: FileId.optional(),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`)
    .default(DEFAULT_PAGE_SIZE)
});
export type FilesQuery = z.infer<typeof FilesQuery>;

/** Room → clients: a file appeared or changed (`file`), or was deleted (`deleted`). */
export type RoomFilesFrame = { type: "rooms_file"; file: RoomFile } | { type: "rooms_file_deleted"; id: string };

/** A message's file part as stored: the AI SDK's `file` part, its url the room's file route. */
export interface FileRef {
  type: "file";
  mediaType: string;
  filename: string;
  url: string;
}

/** A file route of any room (`fileIdFromUrl` checks the room too). */
export const FILE_URL_PATTERN = /^\/api\/(?:workspaces\/[^/]+\/)?rooms\/[^/]+\/files\/f_[A-Za-z0-9_-]{16}$/;

/** File ids a REST send carries; each must be a file of that room. */
export const MessageFiles = z
  .array(z.string().regex(FILE_ID_PATTERN, "a file id looks like f_ and 16 letters, digits, _ or -"))
  .max(MAX_FILES_PER_MESSAGE, `a message carries at most ${MAX_FILES_PER_MESSAGE} files`);

/** The room's route of a file's bytes, which is also the `url` of a message's file part. */
export function fileUrl(workspace: string, roomId: string, fileId: string): string {
  const base = workspace === "default" ? "/api" : `/api/workspaces/${encodeURIComponent(workspace)}`;
  return `${base}/rooms/${encodeURIComponent(roomId)}/files/${fileId}`;
}

/** The file id of a file part's url that names a file of `roomId` (any workspace form), or null. */
export function fileIdFromUrl(url: string, roomId: string): string | null {
  const match = /^\/api\/(?:workspaces\/[^/]+\/)?rooms\/([^/]+)\/files\/(f_[A-Za-z0-9_-]{16})$/.exec(url);
  if (!match || decodeURIComponent(match[1] ?? "") !== roomId) return null;
  return match[2] ?? null;
}

/**
 * A file's record and its index as they travel with a room (a fork, a
 * `.zip` export): the same id, author and time, its first line and its
 * passages, so the copy is searchable without reading the bytes again.
 */
export interface FileCopy {
  file: RoomFile;
  firstLine: string | null;
  passages: Array<{ text: string; page?: number; lineFrom?: number; lineTo?: number }>;
}

/**
 * A message's file parts pointed at this room: an imported or forked
 * message names its files by the route of the room it came from, and the
 * copy of each file keeps its id here. Other parts are left as they are.
 */
export function rehomeFileParts<M extends { parts: readonly unknown[] }>(
  message: M,
  urlOf: (fileId: string) => string
): M {
  let changed = false;
  const parts = message.parts.map((part) => {
    const p = part as { type?: unknown; url?: unknown };
    if (p.type !== "file" || typeof p.url !== "string" || !FILE_URL_PATTERN.test(p.url)) return part;
    const fileId = p.url.slice(p.url.lastIndexOf("/") + 1);
    const url = urlOf(fileId);
    if (url === p.url) return part;
    changed = true;
    return { ...p, url };
  });
  return changed ? { ...message, parts } : message;
}

/**
 * A file's record as a `.zip` import reads it (`files/<id>.json`, a FileCopy
 * the export wrote). Only what the import keeps is read, each checked: the
 * server decides the rest (a new id, the type and hash from the bytes).
 */
export const ArchivedFileCopy = z.object({
  file: z.object({
    name: z.string().min(1).max(1000),
    contentType: z.string().max(200).optional(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "sha256 must be 64 lowercase hex digits"),
    author: z.object({ name: z.string().max(200) }).optional(),
    createdAt: z.number().finite().nonnegative().optional(),
    state: z.enum(["stored", "indexing", "indexed", "failed"]),
    pages: z.number().int().nonnegative().nullable().optional(),
    error: z.string().max(2000).nullable().optional()
  }),
  firstLine: z.string().max(1000).nullable().optional(),
  passages: z
    .array(
      z.object({
        text: z.string().max(20_000),
        page: z.number().int().nonnegative().optional(),
        lineFrom: z.number().int().nonnegative().optional(),
        lineTo: z.number().int().nonnegative().optional()
      })
    )
    .max(200_000)
});
export type ArchivedFileCopy = z.infer<typeof ArchivedFileCopy>;
