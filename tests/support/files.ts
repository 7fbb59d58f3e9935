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

/**
 * A PDF whose pages hold these lines of text (Helvetica, uncompressed), with
 * a correct cross-reference table: what pdf.js reads as a real document.
 * `encrypt` adds a Standard security handler whose user password is not
 * empty, so a reader needs a password.
 */
export function makePdf(pages: string[][], { encrypt = false }: { encrypt?: boolean } = {}): Uint8Array<ArrayBuffer> {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
  pages.forEach((lines, i) => {
    const pdfString = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
    const body = `BT /F1 12 Tf 14 TL 72 720 Td ${lines.map((l) => `(${pdfString(l)}) Tj T*`).join(" ")} ET`;
    objects[4 + i * 2] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`;
    objects[5 + i * 2] = `<< /Length ${body.length} >>\nstream\n${body}\nendstream`;
  });
  const encryptId = objects.length;
  if (encrypt) {
    const hex32 = "A".repeat(64);
    objects[encryptId] = `<< /Filter /Standard /V 1 /R 2 /O <${hex32}> /U <${hex32}> /P -4 >>`;
  }
  let pdf = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = pdf.length;
    pdf += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) pdf += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  const trailer = encrypt ? `/Encrypt ${encryptId} 0 R /ID [<${"B".repeat(32)}> <${"B".repeat(32)}>]` : "";
  pdf += `trailer\n<< /Size ${objects.length} /Root 1 0 R ${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(pdf);
}
