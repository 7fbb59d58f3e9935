/**
 * Files as tests make and send them: tiny valid files of each kind (bytes
 * that pass magic-number detection) and multipart bodies, for every layer.
 */

/** A valid 1×1 PNG. */
export const PNG_BYTES = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0)
);

/** The start of a JPEG (SOI + APP0): enough for detection, not a decodable image. */
export const JPEG_HEAD = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);

export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A form with `file` holding `bytes` named `name`, sent as `type`. */
export function fileForm(bytes: Uint8Array<ArrayBuffer> | string, name: string, type = ""): FormData {
  const form = new FormData();
  form.append("file", new Blob([bytes], type ? { type } : {}), name);
  return form;
}

/**
 * A multipart body as a stream of `chunks` (no Content-Length), for uploads
 * bigger than a test wants to hold or cut short: `head`, the file's chunks,
 * then the closing boundary unless `truncate`.
 */
export function streamedUpload(
  name: string,
  type: string,
  chunks: Iterable<Uint8Array>,
  { truncate = false }: { truncate?: boolean } = {}
): { body: ReadableStream<Uint8Array>; contentType: string } {
  const boundary = `----rooms${crypto.randomUUID().replaceAll("-", "")}`;
  const encoder = new TextEncoder();
  const iterator = chunks[Symbol.iterator]();
  let stage: "head" | "file" | "done" = "head";
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === "head") {
        stage = "file";
        controller.enqueue(
          encoder.encode(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`
          )
        );
        return;
      }
      if (stage === "file") {
        const next = iterator.next();
        if (!next.done) return controller.enqueue(next.value);
        stage = "done";
        if (!truncate) controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`));
        return;
      }
      controller.close();
    }
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** `count` chunks of `size` bytes, each filled with `fill` (no file of this size is held at once). */
export function* filledChunks(count: number, size: number, fill = 0x61): Generator<Uint8Array> {
  const chunk = new Uint8Array(size).fill(fill);
  for (let i = 0; i < count; i++) yield chunk;
}
