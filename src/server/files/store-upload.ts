/**
 * An upload's bytes, from the request to R2, in one pass: the type decided
 * from the first bytes before anything is written (domain/files/file-types.ts),
 * text checked as UTF-8 all the way, the SHA-256 computed on the way
 * (workerd's DigestStream) and the size held to its allowance. Memory holds
 * at most one R2 part (PART_BYTES): a file that fits is one `put`, a bigger
 * one an R2 multipart upload, whose parts must all be the same size but the
 * last. Whatever fails, nothing stays in the bucket.
 */

import { AppError } from "@/server/app-error";
import { SNIFF_BYTES, sniffType } from "@/server/domain/files/file-types";
import type { FilePart } from "@/server/domain/files/multipart-stream";
import type { FileKind } from "@/shared/files";

/** R2's smallest part but the last; every part but the last has exactly this size. */
const PART_BYTES = 5 * 1024 * 1024;

export interface StoredUpload {
  size: number;
  sha256: string;
  contentType: string;
  kind: FileKind;
}

export interface UploadAllowance {
  /** The most bytes this upload may have. */
  maxBytes: number;
  /** Why that is the most: said in the 413 (e.g. "the 25 MB file limit"). */
  tooLarge(): AppError;
}

/**
 * Collects chunks into exact PART_BYTES parts. Every full part is copied into
 * the same buffer, made once per upload: a new 5 MiB buffer per part left the
 * earlier ones to the garbage collector, and workerd's memory grew with the
 * file's size. A part is only reused once R2 has acknowledged the last.
 */
class PartBuffer {
  #pieces: Uint8Array[] = [];
  #bytes = 0;
  #part: Uint8Array<ArrayBuffer> | null = null;

  get bytes() {
    return this.#bytes;
  }

  #partBuffer(): Uint8Array<ArrayBuffer> {
    this.#part ??= new Uint8Array(PART_BYTES);
    return this.#part;
  }

  push(chunk: Uint8Array) {
    this.#pieces.push(chunk);
    this.#bytes += chunk.byteLength;
  }

  /**
   * The first `size` bytes (all, by default), removed from the buffer. A full
   * part is the shared part buffer: valid until the next take.
   */
  take(size = this.#bytes): Uint8Array<ArrayBuffer> {
    const out = size === PART_BYTES ? this.#partBuffer() : new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      const piece = this.#pieces[0] as Uint8Array;
      const want = size - filled;
      if (piece.byteLength <= want) {
        out.set(piece, filled);
        filled += piece.byteLength;
        this.#pieces.shift();
      } else {
        out.set(piece.subarray(0, want), filled);
        this.#pieces[0] = piece.subarray(want);
        filled += want;
      }
    }
    this.#bytes -= size;
    return out;
  }
}

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function storeUpload(
  bucket: R2Bucket,
  key: string,
  part: FilePart,
  allowance: UploadAllowance
): Promise<StoredUpload> {
  // workerd's streaming hash (typed as a global by workers-types, it lives on `crypto`).
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream("SHA-256");
  const hashWriter = digest.getWriter();
  const pending = new PartBuffer();
  let size = 0;
  let upload: R2MultipartUpload | null = null;
  const uploaded: R2UploadedPart[] = [];
  let textDecoder: TextDecoder | null = null;
  let sniffed: { contentType: string; kind: FileKind } | null = null;
  let head: Uint8Array = new Uint8Array(0);

  const accept = async (chunk: Uint8Array) => {
    size += chunk.byteLength;
    if (size > allowance.maxBytes) throw allowance.tooLarge();
    if (textDecoder && (chunk.includes(0) || !decodes(textDecoder, chunk, false))) throw notText();
    await hashWriter.write(chunk);
    pending.push(chunk);
    while (pending.bytes >= PART_BYTES) {
      upload ??= await bucket.createMultipartUpload(key, { httpMetadata: { contentType: sniffed?.contentType } });
      uploaded.push(await upload.uploadPart(uploaded.length + 1, pending.take(PART_BYTES)));
    }
  };

  try {
    // Decide the type first: nothing is written for a file we refuse.
    let complete = false;
    while (head.byteLength < SNIFF_BYTES) {
      const chunk = await part.read();
      if (!chunk) {
        complete = true;
        break;
      }
      head = concat(head, chunk);
      if (head.byteLength > allowance.maxBytes) throw allowance.tooLarge();
    }
    const sniff = sniffType(head, { name: part.filename, contentType: part.contentType }, complete);
    if (!sniff.ok) throw new AppError("unsupported_media_type:file", 415, sniff.reason);
    sniffed = sniff;
    if (sniff.kind === "text") {
      textDecoder = new TextDecoder("utf-8", { fatal: true });
      if (!decodes(textDecoder, head, false)) throw notText();
    }
    size = head.byteLength;
    await hashWriter.write(head);
    pending.push(head);
    head = new Uint8Array(0);

    for (let chunk = await part.read(); chunk; chunk = await part.read()) await accept(chunk);
    if (textDecoder && !decodes(textDecoder, new Uint8Array(0), true)) throw notText();
    await hashWriter.close();
    const sha256 = hex(await digest.digest);

    const multipart = upload as R2MultipartUpload | null;
    if (multipart) {
      if (pending.bytes > 0) uploaded.push(await multipart.uploadPart(uploaded.length + 1, pending.take()));
      await multipart.complete(uploaded);
    } else {
      await bucket.put(key, pending.take(), {
        httpMetadata: { contentType: sniff.contentType },
        sha256
      });
    }
    return { size, sha256, contentType: sniff.contentType, kind: sniff.kind };
  } catch (error) {
    await part.cancel();
    const multipart = upload as R2MultipartUpload | null;
    await (multipart ? multipart.abort() : bucket.delete(key)).catch(() => {});
    throw error;
  }
}

function decodes(decoder: TextDecoder, bytes: Uint8Array, last: boolean): boolean {
  try {
    decoder.decode(bytes, { stream: !last });
    return true;
  } catch {
    return false;
  }
}

function notText(): AppError {
  return new AppError(
    "unsupported_media_type:file",
    415,
    "The file starts as text but is not UTF-8 text throughout; send it as a supported type."
  );
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
