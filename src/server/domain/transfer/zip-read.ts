/**
 * Reading a `.zip` an import was sent, the way unzip tools do: the end
 * record, then the central directory, then each entry from its local
 * header. Our own export writes entries whose sizes follow their data (data
 * descriptors), so an archive cannot be read front to back as it arrives;
 * the caller keeps it somewhere it can read at any offset (a ZipSource: R2
 * ranges in the Worker, bytes in tests) and entries stream out of it one at
 * a time, each checked against its size and CRC-32 as it passes.
 *
 * Only what a room's archive needs: stored (0) and deflated (8) entries.
 * Everything else is refused as a 400 naming why: ZIP64, encryption, split
 * archives, other methods, names that could escape a folder (`..`,
 * absolute paths, drive letters, backslashes), duplicates, and any entry
 * whose bytes do not match its size or CRC. Pure: no storage.
 */
import { AppError } from "@/server/app-error";
import { crc32 } from "./zip-stream";

/** Where the archive's bytes are: read a range whole, or stream it. */
export interface ZipSource {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
  stream(offset: number, length: number): ReadableStream<Uint8Array>;
}

export interface ZipDirectoryEntry {
  name: string;
  method: 0 | 8;
  crc: number;
  compressedSize: number;
  /** Its size once inflated: what the entry's bytes are checked against. */
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_BYTES = 22;
const MAX_COMMENT = 0xffff;

export const badZip = (reason: string) =>
  new AppError("bad_request:zip", 400, `The .zip cannot be imported: ${reason}`);

/** Whether bytes start as a zip does (a local file header). */
export function isZip(head: Uint8Array): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The central directory's place, from the end record (searched back over a comment). */
async function endRecord(source: ZipSource): Promise<{ offset: number; size: number; count: number }> {
  const tailLength = Math.min(source.size, EOCD_BYTES + MAX_COMMENT);
  const tailStart = source.size - tailLength;
  const tail = await source.read(tailStart, tailLength);
  const v = view(tail);
  let at = tail.length - EOCD_BYTES;
  while (at >= 0 && v.getUint32(at, true) !== EOCD) at--;
  if (at < 0) throw badZip("it has no end record (is it cut short?).");
  if (at >= 20 && v.getUint32(at - 20, true) === ZIP64_LOCATOR) throw badZip("ZIP64 archives are not supported.");
  const disk = v.getUint16(at + 4, true);
  const cdDisk = v.getUint16(at + 6, true);
  const onDisk = v.getUint16(at + 8, true);
  const count = v.getUint16(at + 10, true);
  const size = v.getUint32(at + 12, true);
  const offset = v.getUint32(at + 16, true);
  if (count === 0xffff || size === 0xffff_ffff || offset === 0xffff_ffff) {
    throw badZip("ZIP64 archives are not supported.");
  }
  if (disk !== 0 || cdDisk !== 0 || onDisk !== count) throw badZip("split (multi-part) archives are not supported.");
  if (offset + size > tailStart + at) throw badZip("its central directory points past its end.");
  return { offset, size, count };
}

/** Whether a name could land outside the folder it is unpacked in, or is no name at all. */
function unsafeName(name: string): boolean {
  if (name.length === 0 || name.includes("\0") || name.includes("\\")) return true;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return true;
  return name.split("/").some((segment) => segment === "..");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeName(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw badZip("an entry's name is not UTF-8.");
  }
}

/** The archive's entries, as its central directory lists them; refuses what we do not read. */
export async function readDirectory(source: ZipSource, maxEntries: number): Promise<ZipDirectoryEntry[]> {
  if (source.size < EOCD_BYTES) throw badZip("it is too short to be a zip.");
  const end = await endRecord(source);
  if (end.count > maxEntries) throw badZip(`it holds ${end.count} entries; at most ${maxEntries} are read.`);
  const directory = await source.read(end.offset, end.size);
  const v = view(directory);
  const entries: ZipDirectoryEntry[] = [];
  const names = new Set<string>();
  let at = 0;
  for (let i = 0; i < end.count; i++) {
    if (at + 46 > directory.length || v.getUint32(at, true) !== CENTRAL) {
      throw badZip(`its central directory is damaged at entry ${i + 1}.`);
    }
    const flags = v.getUint16(at + 8, true);
    const method = v.getUint16(at + 10, true);
    const nameLength = v.getUint16(at + 28, true);
    const extraLength = v.getUint16(at + 30, true);
    const commentLength = v.getUint16(at + 32, true);
    if (at + 46 + nameLength > directory.length) throw badZip(`its central directory is damaged at entry ${i + 1}.`);
    const name = decodeName(directory.subarray(at + 46, at + 46 + nameLength));
    const entry = {
      name,
      method: method as 0 | 8,
      crc: v.getUint32(at + 16, true),
      compressedSize: v.getUint32(at + 20, true),
      size: v.getUint32(at + 24, true),
      localOffset: v.getUint32(at + 42, true)
    };
    if (unsafeName(name)) throw badZip(`the entry name "${name.slice(0, 200)}" is not a safe relative path.`);
    if (flags & 0x41) throw badZip(`"${name}" is encrypted.`);
    if (method !== 0 && method !== 8) {
      throw badZip(`"${name}" uses compression method ${method}; only stored (0) and deflate (8) are read.`);
    }
    if ([entry.compressedSize, entry.size, entry.localOffset].includes(0xffff_ffff)) {
      throw badZip("ZIP64 archives are not supported.");
    }
    if (method === 0 && entry.compressedSize !== entry.size) throw badZip(`"${name}" is stored but its sizes differ.`);
    if (names.has(name)) throw badZip(`"${name}" appears twice.`);
    names.add(name);
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Errors out unless the bytes passing through are exactly the entry's size and CRC. */
function checked(entry: ZipDirectoryEntry): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  let crc = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.length;
      if (size > entry.size) throw badZip(`"${entry.name}" holds more bytes than its header says.`);
      crc = crc32(chunk, crc);
      controller.enqueue(chunk);
    },
    flush() {
      if (size !== entry.size) throw badZip(`"${entry.name}" holds fewer bytes than its header says.`);
      if (crc !== entry.crc) throw badZip(`"${entry.name}" fails its CRC check (the archive is damaged).`);
    }
  });
}

/** Turns an inflater's own failure into a 400; our checks' errors pass as they are. */
function inflated(compressed: ReadableStream<Uint8Array>, name: string): ReadableStream<Uint8Array> {
  const inflater = new DecompressionStream("deflate-raw") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
  const reader = compressed.pipeThrough(inflater).getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        throw error instanceof AppError ? error : badZip(`"${name}" is not valid deflate data.`);
      }
    },
    cancel: (reason) => reader.cancel(reason)
  });
}

/** An entry's bytes, inflated if need be, checked against its size and CRC as they stream. */
export async function openEntry(source: ZipSource, entry: ZipDirectoryEntry): Promise<ReadableStream<Uint8Array>> {
  if (entry.localOffset + 30 > source.size) throw badZip(`"${entry.name}" points past the archive's end.`);
  const header = view(await source.read(entry.localOffset, 30));
  if (header.getUint32(0, true) !== LOCAL) throw badZip(`"${entry.name}" has no local header where it should.`);
  if (header.getUint16(6, true) & 0x41) throw badZip(`"${entry.name}" is encrypted.`);
  const dataStart = entry.localOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  if (dataStart + entry.compressedSize > source.size) throw badZip(`"${entry.name}" runs past the archive's end.`);
  const raw = source.stream(dataStart, entry.compressedSize);
  const bytes = entry.method === 8 ? inflated(raw, entry.name) : raw;
  return bytes.pipeThrough(checked(entry));
}

/** A small entry whole (a transcript, a file's record), at most `max` bytes. */
export async function readEntry(source: ZipSource, entry: ZipDirectoryEntry, max: number): Promise<Uint8Array> {
  if (entry.size > max) throw badZip(`"${entry.name}" is larger than the ${max} bytes it may have.`);
  const out = new Uint8Array(entry.size);
  let at = 0;
  const reader = (await openEntry(source, entry)).getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    out.set(next.value, at);
    at += next.value.length;
  }
  return out;
}

/** Bytes in memory as a ZipSource (tests; small archives). */
export function memorySource(bytes: Uint8Array): ZipSource {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.slice(offset, offset + length),
    stream: (offset, length) =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.slice(offset, offset + length));
          controller.close();
        }
      })
  };
}
