import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ndjsonBatches } from "@/server/domain/transfer/ndjson-batches";

const encoder = new TextEncoder();

/** A pull stream over `chunks`, counting how many were read. */
function streamOf(chunks: Uint8Array[]) {
  const pulled = { count: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled.count === chunks.length) return controller.close();
        controller.enqueue(chunks[pulled.count++]);
      }
    },
    { highWaterMark: 0 }
  );
  return { stream, pulled };
}

/** `bytes` cut at the given offsets (sorted, deduplicated, within bounds). */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const at = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    out.push(bytes.slice(from, to));
    from = to;
  }
  return out;
}

async function collect(gen: AsyncGenerator<string[]>): Promise<string[][]> {
  const out: string[][] = [];
  for await (const batch of gen) out.push(batch);
  return out;
}

describe("NDJSON batches", () => {
  it("yields every line once, in order, in batches of at most the limit, however the bytes are cut", async () => {
    const line = fc.string({ unit: "grapheme", maxLength: 30 }).map((s) => JSON.stringify({ text: s }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        async (lines, offsets, max, trailingNewline) => {
          const text = lines.join("\n") + (trailingNewline && lines.length > 0 ? "\n" : "");
          const { stream } = streamOf(cut(encoder.encode(text), offsets));
          const batches = await collect(ndjsonBatches(stream, max));
          expect(batches.flat()).toEqual(lines.filter((l) => l.length > 0));
          for (const batch of batches) {
            expect(batch.length).toBeGreaterThan(0);
            expect(batch.length).toBeLessThanOrEqual(max);
          }
        }
      )
    );
  });

  it("reads the stream as the batches are taken, not all of it first", async () => {
    // 1,000 lines, ten to a chunk: the first batch of 100 needs ten chunks, not a hundred.
    const chunks = Array.from({ length: 100 }, (_, c) =>
      encoder.encode(
        Array.from({ length: 10 }, (_, i) => `${JSON.stringify({ type: "message", n: c * 10 + i })}\n`).join("")
      )
    );
    const { stream, pulled } = streamOf(chunks);
    const batches = ndjsonBatches(stream, 100);
    const first = await batches.next();
    expect(first.value).toHaveLength(100);
    expect(pulled.count).toBeLessThanOrEqual(11);
    const rest = await collect(batches);
    expect(rest).toHaveLength(9);
    expect(rest.every((batch) => batch.length === 100)).toBe(true);
    expect(pulled.count).toBe(100);
  });

  it("splits one large chunk into bounded batches", async () => {
    const text = Array.from({ length: 250 }, (_, n) => JSON.stringify({ n })).join("\n");
    const { stream } = streamOf([encoder.encode(text)]);
    const sizes = (await collect(ndjsonBatches(stream, 100))).map((b) => b.length);
    expect(sizes).toEqual([100, 100, 50]);
  });

  it("keeps a multi-byte character cut between chunks whole", async () => {
    const bytes = encoder.encode('{"t":"héllo 👋"}\n');
    const { stream } = streamOf(cut(bytes, [3, 4, 11, 12, 13]));
    expect(await collect(ndjsonBatches(stream, 10))).toEqual([['{"t":"héllo 👋"}']]);
  });
});
