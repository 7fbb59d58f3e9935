/**
 * A room as a `.zip`: its JSON export (`room.json`, the same file
 * `?format=json` gives) and every file of the room, each as
 * `files/<file id>/<name>` with its record and index beside it
 * (`files/<file id>.json`, a FileCopy), so an import can restore them
 * without reading the bytes again. Streamed entry by entry
 * (domain/transfer/zip-stream.ts): the Worker holds one chunk of one file
 * at a time, and the bytes go from R2 to the response without passing
 * through a Durable Object.
 */
import { type ZipEntry, zipStream } from "@/server/domain/transfer/zip-stream";
import { MAX_PAGE_SIZE } from "@/shared/constants";
import type { FileCopy, FilePage } from "@/shared/files";

/** What the archive reads: the room's export, its files a page at a time, each file's copy. */
export interface ZipSource {
  transcript(): Promise<ReadableStream<Uint8Array>>;
  files(before: string | undefined, limit: number): Promise<FilePage>;
  /** A file's record, index and key; throws when it was deleted meanwhile. */
  copy(fileId: string): Promise<{ copy: FileCopy; key: string }>;
}

const encoder = new TextEncoder();

async function* entries(bucket: R2Bucket, source: ZipSource, now: Date): AsyncGenerator<ZipEntry> {
  yield { name: "room.json", modified: now, body: await source.transcript() };
  let before: string | undefined;
  do {
    const page = await source.files(before, MAX_PAGE_SIZE);
    for (const listed of page.files) {
      // A file deleted while the archive streams is left out, as if it had gone a moment earlier.
      const found = await source.copy(listed.id).catch(() => null);
      const object = found ? await bucket.get(found.key) : null;
      if (!found || !object) continue;
      const modified = new Date(found.copy.file.createdAt);
      yield { name: `files/${listed.id}.json`, modified, body: encoder.encode(JSON.stringify(found.copy)) };
      yield { name: `files/${listed.id}/${found.copy.file.name}`, modified, body: object.body };
    }
    before = page.nextCursor ?? undefined;
  } while (before);
}

export function roomZip(bucket: R2Bucket, source: ZipSource): ReadableStream<Uint8Array> {
  return zipStream(entries(bucket, source, new Date()));
}
