/**
 * A room's `.zip` (files/room-zip.ts wrote it) imported with its files, in
 * the Worker: the archive spooled to R2 (files/zip-spool.ts), its directory
 * and transcript read and checked as a JSON import is, the files' sizes held
 * to the quotas before a byte is stored, then each file's bytes checked (CRC,
 * size, type from its bytes, UTF-8 for text), hashed and written under the
 * new room in R2 while the overseer makes the room and takes each file's
 * record and index (one NDJSON line each, as the bytes land). Nothing but
 * records reaches a Durable Object.
 *
 * All or nothing: if anything fails, the overseer deletes the room (and
 * purges its prefix in R2), and the Worker deletes every object it wrote,
 * the spooled archive always.
 */

import type { RpcResult } from "@/server/app-error";
import { AppError, unwrap } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import { fileKey, generateFileId, roomPrefix } from "@/server/domain/files/file-limits";
import { SNIFF_BYTES, sniffType } from "@/server/domain/files/file-types";
import type { ImportedRoom } from "@/server/domain/transfer/imported-room";
import { parseImportFile } from "@/server/domain/transfer/room-import";
import {
  type ArchivedFile,
  type ArchivedFiles,
  MAX_ZIP_ENTRIES,
  planArchive,
  restoredCopy,
  type StoredBytes,
  withFileIds,
  type ZipImportTicket
} from "@/server/domain/transfer/zip-import";
import { badZip, openEntry, readDirectory, readEntry, type ZipSource } from "@/server/domain/transfer/zip-read";
import { ArchivedFileCopy } from "@/shared/files";
import { type ImportResult, MAX_IMPORT_BYTES, MAX_ZIP_IMPORT_BYTES } from "@/shared/transfer";
import { r2ZipSource, spoolZip } from "./zip-spool";

/** What the import asks of the overseer. */
export interface ZipImportOverseer {
  admitZipImport(caller: Caller): Promise<RpcResult<ZipImportTicket>>;
  checkZipImportFits(sizes: number[], caller: Caller): Promise<RpcResult<void>>;
  importRooms(rooms: ImportedRoom[], caller: Caller, archive?: ArchivedFiles): Promise<RpcResult<ImportResult>>;
}

/** A file's record in the archive: its index may be as large as its text. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
/** Keys one R2 delete takes. */
const DELETE_BATCH = 1000;
const encoder = new TextEncoder();
const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

async function readHead(stream: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const pieces: Uint8Array[] = [];
  let size = 0;
  while (size < max) {
    const { done, value } = await reader.read();
    if (done) break;
    pieces.push(value);
    size += value.length;
  }
  await reader.cancel();
  const head = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    head.set(piece, at);
    at += piece.length;
  }
  return head.subarray(0, max);
}

function notText(where: string): AppError {
  return new AppError("unsupported_media_type:file", 415, `${where} starts as text but is not UTF-8 text throughout.`);
}

/** One file's bytes, checked on the way, into R2 at `key`. */
async function storeFile(
  bucket: R2Bucket,
  source: ZipSource,
  file: ArchivedFile,
  claimedType: string | undefined,
  key: string
): Promise<StoredBytes> {
  const where = `files/${file.oldId}/${file.name}`;
  const head = await readHead(await openEntry(source, file.data), SNIFF_BYTES);
  const sniff = sniffType(head, { name: file.name, contentType: claimedType }, file.data.size <= SNIFF_BYTES);
  if (!sniff.ok) throw new AppError("unsupported_media_type:file", 415, `${where}: ${sniff.reason}`);
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream("SHA-256");
  const hash = digest.getWriter();
  const text = sniff.kind === "text" ? new TextDecoder("utf-8", { fatal: true }) : null;
  const decodes = (bytes: Uint8Array, last: boolean) => {
    try {
      text?.decode(bytes, { stream: !last });
    } catch {
      throw notText(where);
    }
  };
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      if (text && chunk.includes(0)) throw notText(where);
      decodes(chunk, false);
      await hash.write(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      decodes(new Uint8Array(0), true);
      await hash.close();
    }
  });
  const { readable, writable } = new FixedLengthStream(file.data.size);
  const [stored, piped] = await Promise.allSettled([
    bucket.put(key, readable, { httpMetadata: { contentType: sniff.contentType } }),
    (await openEntry(source, file.data)).pipeThrough(tap).pipeTo(writable)
  ]);
  if (piped.status === "rejected") throw piped.reason;
  if (stored.status === "rejected") throw stored.reason;
  return { size: file.data.size, sha256: hex(await digest.digest), contentType: sniff.contentType, kind: sniff.kind };
}

async function readRecord(source: ZipSource, file: ArchivedFile): Promise<ArchivedFileCopy | null> {
  if (!file.record) return null;
  const bytes = await readEntry(source, file.record, MAX_RECORD_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw badZip(`${file.record.name} is not valid JSON.`);
  }
  const parsed = ArchivedFileCopy.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badZip(`${file.record.name}: ${issue?.path.join(".")}: ${issue?.message}.`);
  }
  return parsed.data;
}

interface Restore {
  bucket: R2Bucket;
  source: ZipSource;
  ticket: ZipImportTicket;
  files: ArchivedFile[];
  ids: ReadonlyMap<string, string>;
  /** Keys written, for the clean-up. */
  written: string[];
}

/**
 * Each file stored, then its record as one NDJSON line, pulled by the
 * overseer. A failure is kept for the caller and ends the stream early:
 * the overseer, missing files, refuses and discards the room.
 */
function copiesStream(restore: Restore, failed: (error: unknown) => void): ReadableStream<Uint8Array> {
  const queue = [...restore.files];
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const file = queue.shift();
        if (!file) return controller.close();
        try {
          const id = restore.ids.get(file.oldId) as string;
          const key = fileKey(restore.ticket.workspace, restore.ticket.roomId, id);
          const record = await readRecord(restore.source, file);
          restore.written.push(key);
          const stored = await storeFile(restore.bucket, restore.source, file, record?.file.contentType, key);
          const copy = restoredCopy(id, file, record, stored, Date.now());
          controller.enqueue(encoder.encode(`${JSON.stringify(copy)}\n`));
        } catch (error) {
          failed(error);
          controller.close();
        }
      }
    },
    { highWaterMark: 0 }
  );
}

/** Imports the archive the request carries (`length` bytes; its first bytes already said "zip"). */
export async function importZip(
  bucket: R2Bucket,
  overseer: ZipImportOverseer,
  caller: Caller,
  body: ReadableStream<Uint8Array>,
  length: number
): Promise<ImportResult> {
  if (length > MAX_ZIP_IMPORT_BYTES) {
    throw new AppError("payload_too_large:body", 413, `A .zip import may be at most ${MAX_ZIP_IMPORT_BYTES} bytes.`);
  }
  const ticket = unwrap(await overseer.admitZipImport(caller));
  const spoolKey = `${roomPrefix(ticket.workspace, ticket.roomId)}import.zip`;
  const written: string[] = [];
  let failure: unknown = null;
  let done = false;
  try {
    await spoolZip(bucket, spoolKey, body, length);
    const source = r2ZipSource(bucket, spoolKey, length);
    const plan = planArchive(await readDirectory(source, MAX_ZIP_ENTRIES));
    const transcript = new TextDecoder().decode(await readEntry(source, plan.transcript, MAX_IMPORT_BYTES));
    const rooms = parseImportFile(transcript);
    if (rooms.length !== 1) throw badZip("its room.json must hold one room.");
    const sizes = plan.files.map((f) => f.data.size);
    unwrap(await overseer.checkZipImportFits(sizes, caller));
    const ids = new Map(plan.files.map((f) => [f.oldId, generateFileId()]));
    const restore: Restore = { bucket, source, ticket, files: plan.files, ids, written };
    const copies = copiesStream(restore, (error) => {
      failure = error;
    });
    const room = withFileIds(rooms[0] as ImportedRoom, ids);
    // What failed while the files streamed says more than the overseer's "not all arrived".
    const result = await overseer
      .importRooms([room], caller, { roomId: ticket.roomId, sizes, copies })
      .catch((error: unknown) => {
        throw failure ?? error;
      });
    if (failure) throw failure;
    done = true;
    return unwrap(result);
  } finally {
    const leftovers = done ? [spoolKey] : [spoolKey, ...written];
    for (let at = 0; at < leftovers.length; at += DELETE_BATCH) {
      await bucket
        .delete(leftovers.slice(at, at + DELETE_BATCH))
        .catch((error: unknown) => console.warn("[import] could not clean up:", error));
    }
  }
}
