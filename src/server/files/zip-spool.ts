/**
 * Where a `.zip` import waits while the Worker reads it: in R2, not in
 * memory (an archive may hold a room's gigabyte of files) and never in a
 * Durable Object. A zip is read from its end (domain/transfer/zip-read.ts),
 * so the request is first written whole to one object, then read back in
 * ranges, an entry at a time. The object is the import's own; whoever spools
 * deletes it when the import ends, however it ends.
 */
import type { ZipSource } from "@/server/domain/transfer/zip-read";

/** Writes the request body (`length` bytes, as its Content-Length says) to `key`. */
export async function spoolZip(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  length: number
): Promise<void> {
  // A fixed-length stream tells R2 the size up front, and fails if the body is longer or shorter.
  const { readable, writable } = new FixedLengthStream(length);
  const [stored, piped] = await Promise.allSettled([
    bucket.put(key, readable, { httpMetadata: { contentType: "application/zip" } }),
    body.pipeTo(writable)
  ]);
  if (piped.status === "rejected") throw piped.reason;
  if (stored.status === "rejected") throw stored.reason;
}

async function range(bucket: R2Bucket, key: string, offset: number, length: number): Promise<R2ObjectBody> {
  const object = await bucket.get(key, { range: { offset, length } });
  if (!object) throw new Error(`the spooled archive ${key} is gone`);
  return object;
}

/** The spooled archive as a ZipSource: each read one ranged GET. */
export function r2ZipSource(bucket: R2Bucket, key: string, size: number): ZipSource {
  return {
    size,
    read: async (offset, length) =>
      length === 0 ? new Uint8Array(0) : new Uint8Array(await (await range(bucket, key, offset, length)).arrayBuffer()),
    stream: (offset, length) => {
      let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (length === 0) return controller.close();
          reader ??= (await range(bucket, key, offset, length)).body.getReader();
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: async (reason) => {
          await reader?.cancel(reason);
        }
      });
    }
  };
}
