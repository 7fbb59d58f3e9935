/**
 * The `file` field of a `multipart/form-data` body, read as a stream: its
 * bytes come out chunk by chunk as the request arrives, so a 25 MB upload
 * never sits whole in memory. Written by hand because the maintained
 * parsers at hand (@remix-run/multipart-parser and its predecessors) hand
 * each part over buffered whole. Other fields before the file are skipped
 * (bounded); anything after it is never read.
 */

export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MultipartError";
  }
}

/** Limits on what precedes the file's bytes. */
const MAX_HEADER_BYTES = 16 * 1024;
const MAX_SKIPPED_FIELD_BYTES = 64 * 1024;
const MAX_PARTS_BEFORE_FILE = 20;

export interface FilePart {
  /** The filename the client gave (unsanitised). */
  filename: string;
  /** The part's Content-Type, if any. */
  contentType: string | undefined;
  /** The next chunk of the file's bytes, or null after the last one. Throws MultipartError on a cut body. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading the request (after an error). */
  cancel(): Promise<void>;
}

/** The boundary of a `multipart/form-data` Content-Type, or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType.trim())) return null;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

const encoder = new TextEncoder();
const CRLF = encoder.encode("\r\n");
const HEADER_END = encoder.encode("\r\n\r\n");

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0] as number;
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first, from); i >= 0 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** `name="…"` or RFC 5987 `name*=UTF-8''…` from a Content-Disposition value. */
function dispositionParam(value: string, key: string): string | undefined {
  const extended = new RegExp(`(?:^|;)\\s*${key}\\*\\s*=\\s*UTF-8''([^;]*)`, "i").exec(value);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // fall through to the plain form
    }
  }
  const quoted = new RegExp(`(?:^|;)\\s*${key}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`, "i").exec(value);
  if (quoted?.[1] !== undefined) return quoted[1].replace(/\\(.)/g, "$1");
  return new RegExp(`(?:^|;)\\s*${key}\\s*=\\s*([^;\\s]+)`, "i").exec(value)?.[1];
}

function parseHeaders(block: Uint8Array): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of new TextDecoder().decode(block).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/**
 * Finds the part named `field` in a multipart body and returns a reader of
 * its bytes. Throws MultipartError when the body is malformed or has no such
 * part.
 */
export async function openFilePart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  field = "file"
): Promise<FilePart> {
  const reader = body.getReader();
  // The delimiter between parts; the first one may come without the CRLF.
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  let buffer: Uint8Array = new Uint8Array(0);
  let ended = false;

  const pull = async (): Promise<boolean> => {
    if (ended) return false;
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return false;
    }
    buffer = concat(buffer, value);
    return true;
  };
  const cut = () => new MultipartError("The upload ended before the file did.");

  // Preamble: up to the first delimiter (treating the body's start as a line start).
  buffer = concat(CRLF, buffer);
  for (;;) {
    const at = indexOf(buffer, delimiter);
    if (at >= 0) {
      buffer = buffer.subarray(at + delimiter.length);
      break;
    }
    if (buffer.length > MAX_SKIPPED_FIELD_BYTES) throw new MultipartError("No multipart boundary where expected.");
    if (!(await pull())) throw new MultipartError("The body is not multipart/form-data with the given boundary.");
  }

  for (let parts = 0; parts <= MAX_PARTS_BEFORE_FILE; parts++) {
    // After a delimiter: "--" ends the body; otherwise CRLF, then headers.
    while (buffer.length < 2) if (!(await pull())) throw cut();
    if (buffer[0] === 0x2d && buffer[1] === 0x2d) break;
    let headerEnd = indexOf(buffer, HEADER_END);
    while (headerEnd < 0) {
      if (buffer.length > MAX_HEADER_BYTES) throw new MultipartError("A part's headers are too long.");
      if (!(await pull())) throw cut();
      headerEnd = indexOf(buffer, HEADER_END);
    }
    // The headers start after the CRLF that follows the delimiter (transport padding allowed).
    const lineEnd = indexOf(buffer, CRLF);
    const headers = parseHeaders(buffer.subarray(lineEnd + 2, headerEnd));
    buffer = buffer.subarray(headerEnd + HEADER_END.length);
    const disposition = headers.get("content-disposition") ?? "";
    const filename = dispositionParam(disposition, "filename");
    if (dispositionParam(disposition, "name") === field && filename !== undefined) {
      return fileReader(filename, headers.get("content-type"));
    }
    // Not the file: skip to the next delimiter, bounded.
    for (;;) {
      const at = indexOf(buffer, delimiter);
      if (at >= 0) {
        buffer = buffer.subarray(at + delimiter.length);
        break;
      }
      if (buffer.length > MAX_SKIPPED_FIELD_BYTES) throw new MultipartError("A field before the file is too large.");
      if (!(await pull())) throw cut();
    }
  }
  await reader.cancel().catch(() => {});
  throw new MultipartError(`No "${field}" file field in the form.`);

  function fileReader(name: string, contentType: string | undefined): FilePart {
    let finished = false;
    return {
      filename: name,
      contentType,
      async read() {
        if (finished) return null;
        for (;;) {
          const at = indexOf(buffer, delimiter);
          if (at >= 0) {
            finished = true;
            const last = buffer.subarray(0, at);
            buffer = new Uint8Array(0);
            await reader.cancel().catch(() => {});
            return last.length > 0 ? last : null;
          }
          // Everything but a possible start of the delimiter can go out now.
          const safe = buffer.length - (delimiter.length - 1);
          if (safe > 0) {
            const out = buffer.slice(0, safe);
            buffer = buffer.slice(safe);
            return out;
          }
          if (!(await pull())) throw cut();
        }
      },
      cancel: () => reader.cancel().catch(() => {})
    };
  }
}
