/**
 * What a room's `.zip` (files/room-zip.ts wrote it) becomes on import, once
 * its entries are listed (domain/transfer/zip-read.ts): which entry is the
 * transcript, which are files and their records, each file's record as the
 * new room keeps it, and the transcript's file parts pointed at the new
 * files. The server decides what matters: new file ids, the type and hash
 * from the bytes, the reserved author id; an archive's record contributes
 * only the name, the time and the index, and only when its hash is the
 * bytes'. Pure.
 */

import { sanitizeFileName } from "@/server/domain/files/file-types";
import { MAX_AUTHOR_LENGTH, MAX_FILE_NAME_LENGTH, MAX_FILES_PER_ROOM } from "@/shared/constants";
import {
  type ArchivedFileCopy,
  FILE_ID_PATTERN,
  type FileCopy,
  type FileKind,
  fileUrl,
  rehomeFileParts
} from "@/shared/files";
import { IMPORTED_AUTHOR_ID, type ImportedRoom } from "./imported-room";
import { badZip, type ZipDirectoryEntry } from "./zip-read";

/** Entries read at most: two per file, the transcript, and room for folders and the like. */
export const MAX_ZIP_ENTRIES = 2 * MAX_FILES_PER_ROOM + 64;

const TRANSCRIPT_ENTRY = "room.json";

export interface ArchivedFile {
  /** Its id in the archive, which the transcript's file parts name. */
  oldId: string;
  /** The name its bytes are stored under (`files/<id>/<name>`). */
  name: string;
  data: ZipDirectoryEntry;
  /** `files/<id>.json`, when the archive has it. */
  record: ZipDirectoryEntry | null;
}

export interface ArchivePlan {
  transcript: ZipDirectoryEntry;
  files: ArchivedFile[];
}

/**
 * Sorts an archive's entries: `room.json`, and each `files/<id>/<name>`
 * with its `files/<id>.json`. Folders and anything else (a `__MACOSX/` an
 * unzip-and-rezip added) are passed over; a record without its file is refused.
 */
export function planArchive(entries: readonly ZipDirectoryEntry[]): ArchivePlan {
  const transcript = entries.find((e) => e.name === TRANSCRIPT_ENTRY);
  if (!transcript) throw badZip(`it has no ${TRANSCRIPT_ENTRY} (a room's .zip export holds one at its top).`);
  const records = new Map<string, ZipDirectoryEntry>();
  const files: ArchivedFile[] = [];
  for (const entry of entries) {
    const record = /^files\/([^/]+)\.json$/.exec(entry.name);
    if (record && FILE_ID_PATTERN.test(record[1] as string)) records.set(record[1] as string, entry);
    const data = /^files\/([^/]+)\/([^/]+)$/.exec(entry.name);
    if (data && FILE_ID_PATTERN.test(data[1] as string)) {
      files.push({ oldId: data[1] as string, name: data[2] as string, data: entry, record: null });
    }
  }
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file.oldId)) throw badZip(`files/${file.oldId}/ holds more than one file.`);
    seen.add(file.oldId);
    file.record = records.get(file.oldId) ?? null;
  }
  for (const id of records.keys()) {
    if (!seen.has(id)) throw badZip(`files/${id}.json has no file beside it (files/${id}/<name>).`);
  }
  if (files.length > MAX_FILES_PER_ROOM) {
    throw badZip(`it holds ${files.length} files; a room holds at most ${MAX_FILES_PER_ROOM}.`);
  }
  return { transcript, files };
}

/** What the Worker learned from a file's bytes as it stored them. */
export interface StoredBytes {
  size: number;
  sha256: string;
  contentType: string;
  kind: FileKind;
}

const NO_INDEX = "Its index was not in the archive; upload it again to search it.";

/**
 * The new room's record of an archived file under its new id. Its index
 * comes along only for a document the archive had indexed and whose bytes
 * are the ones indexed; otherwise it is kept as failed (downloadable, not
 * searchable), as a fork keeps a file still being read.
 */
export function restoredCopy(
  id: string,
  archived: ArchivedFile,
  record: ArchivedFileCopy | null,
  stored: StoredBytes,
  now: number
): FileCopy {
  if (record && record.file.sha256 !== stored.sha256) {
    throw badZip(`files/${archived.oldId}.json describes other bytes than files/${archived.oldId}/${archived.name}.`);
  }
  const author = record?.file.author?.name.trim().slice(0, MAX_AUTHOR_LENGTH) || "Imported";
  const createdAt = record?.file.createdAt;
  const indexed = stored.kind !== "image" && record?.file.state === "indexed";
  const failed = stored.kind !== "image" && !indexed;
  return {
    file: {
      id,
      name: sanitizeFileName(record?.file.name ?? archived.name, MAX_FILE_NAME_LENGTH),
      contentType: stored.contentType,
      kind: stored.kind,
      size: stored.size,
      sha256: stored.sha256,
      author: { id: IMPORTED_AUTHOR_ID, name: author },
      createdAt: createdAt !== undefined && createdAt <= now ? createdAt : now,
      state: stored.kind === "image" ? "stored" : indexed ? "indexed" : "failed",
      progress: null,
      pages: indexed ? (record?.file.pages ?? null) : null,
      chunks: indexed ? (record?.passages.length ?? 0) : 0,
      error: failed ? (record?.file.state === "failed" ? (record.file.error ?? NO_INDEX) : NO_INDEX) : null
    },
    firstLine: indexed ? (record?.firstLine ?? null) : null,
    passages: indexed ? (record?.passages ?? []) : []
  };
}

/**
 * The room's messages with their file parts naming the new ids (the room
 * then points them at its own route); a part naming a file the archive does
 * not hold is left as it was.
 */
export function withFileIds(room: ImportedRoom, ids: ReadonlyMap<string, string>): ImportedRoom {
  const urlOf = (oldId: string) => fileUrl("default", "imported", ids.get(oldId) ?? oldId);
  return {
    ...room,
    messages: room.messages.map((m) => rehomeFileParts(m, urlOf)),
    versions: room.versions.map((v) => ({ ...v, message: rehomeFileParts(v.message, urlOf) }))
  };
}

/** What the overseer hands the Worker before it reads an archive: where the new room's files go. */
export interface ZipImportTicket {
  roomId: string;
  workspace: string;
}

/** A `.zip` import's files as the overseer receives them: their bytes are in R2 already. */
export interface ArchivedFiles {
  /** The ticket's room id, which the files' keys name. */
  roomId: string;
  /** Each file's size, in the order of `copies`: what the quotas are checked with. */
  sizes: number[];
  /** One FileCopy per line (NDJSON), under its new id. */
  copies: ReadableStream<Uint8Array>;
}
