import { crc32 as nodeCrc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32, type ZipEntry, zipStream } from "@/server/domain/transfer/zip-stream";
import { readZip } from "../support/zip";

async function zipOf(entries: ZipEntry[]): Promise<Uint8Array> {
  async function* each() {
    yield* entries;
  }
  return new Uint8Array(await new Response(zipStream(each())).arrayBuffer());
}

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    }
  });
}

describe("the streamed zip writer", () => {
  it("computes CRC-32 as zlib does, across chunks", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.nat(2000), (bytes, cut) => {
        const at = Math.min(cut, bytes.length);
        expect(crc32(bytes.subarray(at), crc32(bytes.subarray(0, at)))).toBe(nodeCrc32(bytes));
      })
    );
  });

  it("writes stored entries an unzip reader reads back byte for byte, with their CRCs", async () => {
    const big = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
    const zip = await zipOf([
      { name: "room.json", modified: new Date("2026-03-12T10:20:30Z"), body: new TextEncoder().encode('{"a":1}') },
      { name: "files/f_x/Résumé café.pdf", modified: new Date("2026-03-12T10:20:30Z"), body: chunked(big, 65_536) },
      { name: "empty.txt", modified: new Date(0), body: new Uint8Array(0) }
    ]);
    const entries = readZip(zip);
    expect(entries.map((e) => e.name)).toEqual(["room.json", "files/f_x/Résumé café.pdf", "empty.txt"]);
    expect(new TextDecoder().decode(entries[0]?.bytes)).toBe('{"a":1}');
    expect(entries[1]?.bytes).toEqual(big);
    expect(entries[2]?.bytes.length).toBe(0);
    for (const entry of entries) {
      expect(entry.method).toBe(0);
      expect(entry.flags & (1 << 11)).not.toBe(0); // UTF-8 names
      expect(entry.crc).toBe(nodeCrc32(entry.bytes));
    }
  });
});
