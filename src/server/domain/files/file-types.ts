/**
 * What a file is, decided from its bytes (magic numbers), never from the
 * name or the Content-Type a client sent: those only choose among text
 * types, which bytes cannot tell apart (Markdown and plain text look alike).
 * A claim the bytes contradict (a "PNG" that is a PDF, an "image" that is
 * HTML) is refused, as is anything not on the list.
 */
import type { FileKind } from "@/shared/files";

/** Bytes needed to decide: the longest signature below is 12 bytes; text is judged on more. */
export const SNIFF_BYTES = 4096;

interface Signature {
  type: string;
  kind: FileKind;
  matches(bytes: Uint8Array): boolean;
}

const startsWith =
  (...signature: number[]) =>
  (bytes: Uint8Array) =>
    signature.every((byte, i) => bytes[i] === byte);

const ascii = (bytes: Uint8Array, from: number, text: string) =>
  [...text].every((char, i) => bytes[from + i] === char.charCodeAt(0));

const SIGNATURES: Signature[] = [
  { type: "image/png", kind: "image", matches: startsWith(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a) },
  { type: "image/jpeg", kind: "image", matches: startsWith(0xff, 0xd8, 0xff) },
  { type: "image/gif", kind: "image", matches: (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a") },
  { type: "image/webp", kind: "image", matches: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP") },
  // PDF readers accept the header anywhere in the first 1024 bytes; so do we.
  { type: "application/pdf", kind: "pdf", matches: (b) => indexOfAscii(b.subarray(0, 1024), "%PDF-") >= 0 }
];

/** Text types we index, by what the name or the client says; the bytes only say "UTF-8 text". */
const TEXT_TYPES: Record<string, string> = {
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
  svg: "image/svg+xml",
  xml: "application/xml"
};
const TEXT_MEDIA_TYPES = new Set(Object.values(TEXT_TYPES));

function indexOfAscii(bytes: Uint8Array, text: string): number {
  const first = text.charCodeAt(0);
  for (let i = bytes.indexOf(first); i >= 0 && i + text.length <= bytes.length; i = bytes.indexOf(first, i + 1)) {
    if (ascii(bytes, i, text)) return i;
  }
  return -1;
}

/** Whether bytes look like UTF-8 text: no NUL, no invalid sequence (a cut sequence at the very end is fine). */
function looksLikeText(bytes: Uint8Array, complete: boolean): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

function extension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** `type/subtype` of a Content-Type header, lowercase, or "". */
function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Claims that say nothing: browsers send these for anything they do not know. */
const UNKNOWN_CLAIMS = new Set(["", "application/octet-stream", "binary/octet-stream"]);

export type Sniffed = { ok: true; contentType: string; kind: FileKind } | { ok: false; reason: string };

const ACCEPTED_TYPES = "PNG, JPEG, GIF, WebP, PDF, and UTF-8 text (plain, Markdown, CSV, TSV, JSON, HTML, SVG, XML)";

/**
 * The type of a file from its first bytes (`head`, SNIFF_BYTES or the whole
 * file if shorter: `complete`), checked against what the client claimed.
 */
export function sniffType(head: Uint8Array, claim: { name: string; contentType?: string }, complete: boolean): Sniffed {
  const claimed = mediaType(claim.contentType);
  const signature = SIGNATURES.find((s) => s.matches(head));
  if (signature) {
    if (!UNKNOWN_CLAIMS.has(claimed) && claimed !== signature.type) {
      return { ok: false, reason: `The file is ${signature.type} but was sent as ${claimed}.` };
    }
    return { ok: true, contentType: signature.type, kind: signature.kind };
  }
  if (head.length === 0) return { ok: false, reason: "The file is empty." };
  if (!looksLikeText(head, complete)) {
    return { ok: false, reason: `This kind of file is not supported. Rooms accepts ${ACCEPTED_TYPES}.` };
  }
  const byName = TEXT_TYPES[extension(claim.name)];
  if (!UNKNOWN_CLAIMS.has(claimed) && !claimed.startsWith("text/") && !TEXT_MEDIA_TYPES.has(claimed)) {
    return { ok: false, reason: `The file is text but was sent as ${claimed}.` };
  }
  const contentType = TEXT_MEDIA_TYPES.has(claimed) ? claimed : (byName ?? "text/plain");
  return { ok: true, contentType: `${contentType}; charset=utf-8`, kind: "text" };
}

/** Raster images and PDFs may be shown inline; everything else is a download (SVG and HTML never render). */
export function isInline(contentType: string): boolean {
  return /^(image\/(png|jpeg|gif|webp)|application\/pdf)$/.test(mediaType(contentType));
}

/**
 * A file name safe to store and show: no path, no control or bidi
 * characters, at most `max` characters with the extension kept.
 */
export function sanitizeFileName(raw: string, max: number): string {
  const base = raw.split(/[\\/]/).pop() ?? "";
  const clean = base
    .normalize("NFC")
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "");
  if (!clean) return "file";
  if (clean.length <= max) return clean;
  const ext = extension(clean);
  const keep = ext && ext.length < 12 ? `.${ext}` : "";
  return `${clean.slice(0, max - keep.length).trimEnd()}${keep}`;
}
