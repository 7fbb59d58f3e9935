/**
 * Reads a `.zip` the way an unzip tool does: from the central directory at
 * its end, each entry's local header, then its bytes; for tests of the
 * room's `.zip` export (stored entries only, which is all it writes).
 */
export interface ZipRead {
  name: string;
  /** As the central directory says. */
  crc: number;
  method: number;
  flags: number;
  bytes: Uint8Array;
}

export function readZip(zip: Uint8Array): ZipRead[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("no end of central directory");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const decoder = new TextDecoder();
  const entries: ZipRead[] = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error(`central directory entry ${i} has a bad signature`);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const offset = view.getUint32(at + 42, true);
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLength));
    if (view.getUint32(offset, true) !== 0x04034b50) throw new Error(`${name}: bad local header`);
    const dataAt = offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true);
    entries.push({ name, crc, method, flags, bytes: zip.subarray(dataAt, dataAt + size) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** An entry for `writeZip`: its bytes as stored (`data`, already deflated for method 8) and what the headers say. */
export interface ZipWrite {
  name: string;
  data: Uint8Array;
  method?: number;
  flags?: number;
  crc: number;
  /** The size once inflated (default: `data`'s). */
  size?: number;
  /** Central-directory overrides (e.g. 0xffffffff, as ZIP64 marks them). */
  compressedSize?: number;
}

/**
 * A `.zip` with sizes in the local headers (no data descriptors), as most
 * zip tools write one; the headers say what each entry claims, true or not,
 * so tests can make broken archives.
 */
export function writeZip(entries: ZipWrite[]): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = encoder.encode(e.name);
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, (e.flags ?? 0) | (1 << 11), true);
    lv.setUint16(8, e.method ?? 0, true);
    lv.setUint32(14, e.crc, true);
    lv.setUint32(18, e.data.length, true);
    lv.setUint32(22, e.size ?? e.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const entry = new Uint8Array(46 + name.length);
    const cv = new DataView(entry.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, (e.flags ?? 0) | (1 << 11), true);
    cv.setUint16(10, e.method ?? 0, true);
    cv.setUint32(16, e.crc, true);
    cv.setUint32(20, e.compressedSize ?? e.data.length, true);
    cv.setUint32(24, e.size ?? e.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    entry.set(name, 46);
    parts.push(local, e.data);
    central.push(entry);
    offset += local.length + e.data.length;
  }
  const cdSize = central.reduce((sum, c) => sum + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of all) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Bytes raw-deflated, as zip's method 8 keeps them. */
export async function deflateRaw(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
