/**
 * A `.zip` written as a stream, entry after entry, so an export of a room
 * and its files never holds more than one chunk of one file. Workers have
 * no zip container (CompressionStream gives only gzip and raw deflate
 * bodies) and none of our dependencies writes one as a stream, so this is
 * the format by hand, the small part of it we need: every entry is stored
 * (method 0; the bytes that matter, PDFs and images, are compressed already),
 * its CRC-32 and size follow its data in a data descriptor (bit 3: they are
 * known only once the data has streamed), names are UTF-8 (bit 11), and the
 * central directory closes the archive. No ZIP64: an archive past 4 GiB or
 * 65,535 entries is refused, which our limits (a room's 1 GB of files, at most
 * 2,000 files) keep far from.
 */

export interface ZipEntry {
  /** The path inside the archive ("files/report.pdf"). */
  name: string;
  modified: Date;
  body: ReadableStream<Uint8Array> | Uint8Array;
}

const MAX_ZIP32 = 0xffff_ffff;
const MAX_ENTRIES = 0xffff;
const encoder = new TextEncoder();

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (the zip/PNG polynomial), carried across chunks: start at 0. */
export function crc32(chunk: Uint8Array, previous = 0): number {
  let c = ~previous >>> 0;
  for (let i = 0; i < chunk.length; i++) c = (CRC_TABLE[(c ^ (chunk[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}

/** MS-DOS date and time, as zip headers keep them (two-second steps, local fields read as UTC). */
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate()
  };
}

interface Written {
  name: Uint8Array;
  dos: { time: number; date: number };
  crc: number;
  size: number;
  offset: number;
}

const FLAGS = (1 << 3) | (1 << 11);

function localHeader(name: Uint8Array, dos: Written["dos"]): Uint8Array {
  const out = new Uint8Array(30 + name.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, 20, true); // version needed: 2.0
  v.setUint16(6, FLAGS, true);
  v.setUint16(8, 0, true); // stored
  v.setUint16(10, dos.time, true);
  v.setUint16(12, dos.date, true);
  // CRC and sizes: 0 here, in the data descriptor after the data.
  v.setUint16(26, name.length, true);
  out.set(name, 30);
  return out;
}

function dataDescriptor(crc: number, size: number): Uint8Array {
  const out = new Uint8Array(16);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x08074b50, true);
  v.setUint32(4, crc, true);
  v.setUint32(8, size, true);
  v.setUint32(12, size, true);
  return out;
}

function centralDirectory(entries: readonly Written[], offset: number): Uint8Array {
  const size = entries.reduce((sum, e) => sum + 46 + e.name.length, 0);
  const out = new Uint8Array(size + 22);
  const v = new DataView(out.buffer);
  let at = 0;
  for (const e of entries) {
    v.setUint32(at, 0x02014b50, true);
    v.setUint16(at + 4, 20, true); // made by: 2.0
    v.setUint16(at + 6, 20, true);
    v.setUint16(at + 8, FLAGS, true);
    v.setUint16(at + 10, 0, true);
    v.setUint16(at + 12, e.dos.time, true);
    v.setUint16(at + 14, e.dos.date, true);
    v.setUint32(at + 16, e.crc, true);
    v.setUint32(at + 20, e.size, true);
    v.setUint32(at + 24, e.size, true);
    v.setUint16(at + 28, e.name.length, true);
    v.setUint32(at + 42, e.offset, true);
    out.set(e.name, at + 46);
    at += 46 + e.name.length;
  }
  v.setUint32(at, 0x06054b50, true);
  v.setUint16(at + 8, entries.length, true);
  v.setUint16(at + 10, entries.length, true);
  v.setUint32(at + 12, size, true);
  v.setUint32(at + 16, offset, true);
  return out;
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    }
  });
}

/** The archive of `entries`, read one at a time as the stream is pulled. */
export function zipStream(entries: AsyncIterable<ZipEntry>): ReadableStream<Uint8Array> {
  const iterator = entries[Symbol.asyncIterator]();
  const written: Written[] = [];
  let offset = 0;
  let current: { entry: Written; reader: ReadableStreamDefaultReader<Uint8Array> } | null = null;
  let finished = false;
  const tooBig = () => new Error("The archive would pass 4 GiB or 65,535 entries, the most a plain zip holds.");
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (finished) return controller.close();
        if (current) {
          const { done, value } = await current.reader.read();
          if (!done) {
            current.entry.crc = crc32(value, current.entry.crc);
            current.entry.size += value.length;
            offset += value.length;
            if (offset > MAX_ZIP32) throw tooBig();
            return controller.enqueue(value);
          }
          const descriptor = dataDescriptor(current.entry.crc, current.entry.size);
          offset += descriptor.length;
          written.push(current.entry);
          current = null;
          return controller.enqueue(descriptor);
        }
        const next = await iterator.next();
        if (next.done) {
          finished = true;
          return controller.enqueue(centralDirectory(written, offset));
        }
        if (written.length >= MAX_ENTRIES) throw tooBig();
        const { name, modified, body } = next.value;
        const entry: Written = { name: encoder.encode(name), dos: dosDateTime(modified), crc: 0, size: 0, offset };
        const header = localHeader(entry.name, entry.dos);
        offset += header.length;
        const stream = body instanceof Uint8Array ? streamOf(body) : body;
        current = { entry, reader: stream.getReader() };
        controller.enqueue(header);
      },
      async cancel(reason) {
        await current?.reader.cancel(reason);
        await iterator.return?.();
      }
    },
    { highWaterMark: 0 }
  );
}
