import { crc32 as nodeCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { AppError } from "@/server/app-error";
import {
  isZip,
  memorySource,
  openEntry,
  readDirectory,
  readEntry,
  type ZipDirectoryEntry
} from "@/server/domain/transfer/zip-read";
import { type ZipEntry, zipStream } from "@/server/domain/transfer/zip-stream";
import { deflateRaw, writeZip, type ZipWrite } from "../support/zip";

const text = (s: string) => new TextEncoder().encode(s);
const stored = (name: string, data: Uint8Array<ArrayBuffer>): ZipWrite => ({ name, data, crc: nodeCrc32(data) });

async function entriesOf(zip: Uint8Array): Promise<Array<{ entry: ZipDirectoryEntry; bytes: Uint8Array }>> {
  const source = memorySource(zip);
  const entries = await readDirectory(source, 100);
  return Promise.all(entries.map(async (entry) => ({ entry, bytes: await readEntry(source, entry, 10_000_000) })));
}

/** The 400 a broken archive gets, with its message. */
async function refusal(zip: Uint8Array): Promise<string> {
  try {
    await entriesOf(zip);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("bad_request:zip");
    expect((error as AppError).status).toBe(400);
    return (error as AppError).message;
  }
  throw new Error("the archive was read");
}

describe("reading a .zip import", () => {
  it("knows a zip by its first bytes", () => {
    expect(isZip(writeZip([]))).toBe(false); // an empty archive is only its end record
    expect(isZip(writeZip([stored("a.txt", text("a"))]))).toBe(true);
    expect(isZip(text('{"format":"rooms.room-export"}'))).toBe(false);
    expect(isZip(new Uint8Array(0))).toBe(false);
  });

  it("reads our own export's stored entries (sizes after the data) byte for byte", async () => {
    const big = new Uint8Array(50_000).map((_, i) => (i * 31) % 251);
    async function* each(): AsyncGenerator<ZipEntry> {
      yield { name: "room.json", modified: new Date(), body: text('{"a":1}') };
      yield { name: "files/f_x/Résumé.pdf", modified: new Date(), body: big };
    }
    const zip = new Uint8Array(await new Response(zipStream(each())).arrayBuffer());
    const read = await entriesOf(zip);
    expect(read.map((r) => r.entry.name)).toEqual(["room.json", "files/f_x/Résumé.pdf"]);
    expect(new TextDecoder().decode(read[0]?.bytes)).toBe('{"a":1}');
    expect(read[1]?.bytes).toEqual(big);
  });

  it("inflates a deflated entry (CompressionStream's raw deflate) and checks it", async () => {
    const original = text("tide tables\n".repeat(5000));
    const data = await deflateRaw(original);
    expect(data.length).toBeLessThan(original.length);
    const zip = writeZip([{ name: "notes.txt", data, method: 8, crc: nodeCrc32(original), size: original.length }]);
    const [read] = await entriesOf(zip);
    expect(read?.entry).toMatchObject({ method: 8, size: original.length, compressedSize: data.length });
    expect(read?.bytes).toEqual(original);
  });

  it("refuses an entry whose bytes fail their CRC", async () => {
    const data = text("hello");
    expect(await refusal(writeZip([{ name: "a.txt", data, crc: nodeCrc32(data) ^ 1 }]))).toMatch(/CRC/);
    const original = text("hello hello hello");
    const deflated = await deflateRaw(original);
    const zip = writeZip([
      { name: "b.txt", data: deflated, method: 8, crc: nodeCrc32(text("other")), size: original.length }
    ]);
    expect(await refusal(zip)).toMatch(/"b.txt" fails its CRC/);
  });

  it("refuses a deflated entry that inflates past the size it claims, or is not deflate at all", async () => {
    const original = text("x".repeat(100_000));
    const data = await deflateRaw(original);
    const bomb = writeZip([{ name: "bomb.txt", data, method: 8, crc: nodeCrc32(original), size: 1000 }]);
    expect(await refusal(bomb)).toMatch(/more bytes than its header says/);
    const junk = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff]);
    expect(await refusal(writeZip([{ name: "junk.txt", data: junk, method: 8, crc: 0, size: 10 }]))).toMatch(
      /not valid deflate data|more bytes|fewer bytes/
    );
  });

  it("refuses names that could escape the folder they unpack in", async () => {
    for (const name of ["../evil.txt", "files/../../etc/passwd", "/etc/passwd", "C:/windows/x", "a\\..\\b", ""]) {
      expect(await refusal(writeZip([stored(name, text("x"))])), name).toMatch(/not a safe relative path/);
    }
    // A name that merely contains dots is fine.
    expect((await entriesOf(writeZip([stored("files/f_x/a..b.txt", text("x"))])))[0]?.entry.name).toBe(
      "files/f_x/a..b.txt"
    );
  });

  it("refuses other compression methods, encryption, ZIP64, duplicates and archives cut short", async () => {
    expect(await refusal(writeZip([{ ...stored("a.bz2", text("x")), method: 12 }]))).toMatch(/compression method 12/);
    expect(await refusal(writeZip([{ ...stored("a.txt", text("x")), flags: 1 }]))).toMatch(/encrypted/);
    expect(await refusal(writeZip([{ ...stored("a.txt", text("x")), compressedSize: 0xffff_ffff }]))).toMatch(/ZIP64/);
    expect(await refusal(writeZip([stored("a.txt", text("x")), stored("a.txt", text("y"))]))).toMatch(/twice/);
    const whole = writeZip([stored("a.txt", text("hello"))]);
    expect(await refusal(whole.subarray(0, whole.length - 10))).toMatch(/no end record/);
    expect(await refusal(text("PK\x03\x04"))).toMatch(/too short/);
  });

  it("refuses more entries than asked for, before reading any", async () => {
    const zip = writeZip([stored("a", text("1")), stored("b", text("2")), stored("c", text("3"))]);
    await expect(readDirectory(memorySource(zip), 2)).rejects.toThrow(/3 entries; at most 2/);
  });

  it("streams a large entry without reading it whole, and checks it at the end", async () => {
    const big = new Uint8Array(1_000_000).fill(7);
    const zip = writeZip([stored("big.bin", big)]);
    const source = memorySource(zip);
    const [entry] = await readDirectory(source, 10);
    const stream = await openEntry(source, entry as ZipDirectoryEntry);
    let size = 0;
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) size += next.value.length;
    expect(size).toBe(big.length);
    await expect(readEntry(source, entry as ZipDirectoryEntry, 1000)).rejects.toThrow(/larger than the 1000 bytes/);
  });
});
