import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createStreamGuardFetch } from "../../src/server/model/stream-guard-fetch";
import { startFakeOpenAI } from "../support/fake-openai";

// Real providers cut their server-sent events wherever the network does:
// inside a line, inside a JSON string, inside a multi-byte UTF-8 character.
// These tests play such a provider to the guard, as the bytes of a fetch
// response split at chosen positions, each piece a separate read.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function sseOf(deltas: string[]): string {
  const event = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-split",
      object: "chat.completion.chunk",
      created: 1,
      model: "split-model",
      choices: [{ index: 0, delta, finish_reason: finish }]
    })}\n\n`;
  return [
    event({ role: "assistant", content: "" }),
    ...deltas.map((content) => event({ content })),
    event({}, "stop"),
    "data: [DONE]\n\n"
  ].join("");
}

/** `bytes` cut at the given positions (sorted, unique, inside the array). */
function cutAt(bytes: Uint8Array, positions: number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const at of [...positions, bytes.length]) {
    if (at > from) pieces.push(bytes.slice(from, at));
    from = at;
  }
  return pieces;
}

/** A provider fetch whose streamed body delivers `pieces` as separate reads, each after `gap` (if any). */
function providerOf(pieces: Uint8Array[], gap?: (index: number) => Promise<void>): typeof fetch {
  return async () => {
    let index = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (index === pieces.length) return controller.close();
        await gap?.(index);
        controller.enqueue(pieces[index++]);
      }
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
}

/** Everything the guard passes on, failing (instead of hanging the run) if it stops short. */
async function readGuarded(provider: typeof fetch, idleTimeoutMs = 5_000) {
  const guarded = createStreamGuardFetch({ idleTimeoutMs, fetch: provider });
  const response = await guarded("http://provider.test/v1/chat/completions", { method: "POST" });
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return chunks;
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no progress within ${ms} ms (the stream hung)`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function streamedText(provider: typeof fetch) {
  const openai = createOpenAI({
    baseURL: "http://provider.test/v1",
    apiKey: "k",
    fetch: createStreamGuardFetch({ idleTimeoutMs: 5_000, fetch: provider })
  });
  const result = streamText({ model: openai.chat("split-model"), prompt: "hi", maxRetries: 0 });
  let text = "";
  let deltas = 0;
  const errors: unknown[] = [];
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") {
      text += part.text;
      deltas++;
    }
    if (part.type === "error") errors.push(part.error);
  }
  return { text, deltas, errors };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** Deterministic pseudo-random cut positions (so a failure reproduces). */
function randomCuts(length: number, count: number, seed: number): number[] {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const cuts = new Set<number>();
  while (cuts.size < Math.min(count, length - 1)) cuts.add(1 + Math.floor(next() * (length - 1)));
  return [...cuts].sort((a, b) => a - b);
}

// Text pieces drawn from every Unicode plane (no lone surrogates): 1- to 4-byte characters.
const deltasArb = fc.array(fc.string({ unit: "binary", minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 20 });
const splitInput = deltasArb.chain((deltas) => {
  const bytes = encoder.encode(sseOf(deltas));
  return fc.record({
    deltas: fc.constant(deltas),
    cuts: fc
      .uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 80 })
      .map((cuts) => cuts.sort((a, b) => a - b))
  });
});

describe("the stream guard with a provider that splits events anywhere", () => {
  it("passes every byte on, in whole lines, wherever the reads are cut (property)", async () => {
    await fc.assert(
      fc.asyncProperty(splitInput, async ({ deltas, cuts }) => {
        const bytes = encoder.encode(sseOf(deltas));
        const out = await withDeadline(readGuarded(providerOf(cutAt(bytes, cuts))), 5_000, "guard");
        expect(concat(out)).toEqual(bytes);
        for (const chunk of out) expect(chunk.at(-1)).toBe(0x0a);
      }),
      { numRuns: 300 }
    );
  });

  it("gives the model's exact text to the AI SDK wherever the reads are cut (property)", async () => {
    await fc.assert(
      fc.asyncProperty(splitInput, async ({ deltas, cuts }) => {
        const bytes = encoder.encode(sseOf(deltas));
        const { text, errors } = await withDeadline(streamedText(providerOf(cutAt(bytes, cuts))), 5_000, "streamText");
        expect(errors).toEqual([]);
        expect(text).toBe(deltas.join(""));
      }),
      { numRuns: 100 }
    );
  });

  it("survives one byte per read, so every multi-byte character is cut inside", async () => {
    const deltas = ["héllo ", "中文 ", "😀👩‍💻", " done"];
    const bytes = encoder.encode(sseOf(deltas));
    const everyByte = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    const pieces = cutAt(bytes, everyByte);
    expect(pieces.some((p) => p[0] >= 0x80 && p[0] < 0xc0)).toBe(true); // continuation bytes alone
    const { text } = await withDeadline(streamedText(providerOf(pieces)), 5_000, "streamText");
    expect(text).toBe(deltas.join(""));
  });

  it("streams a 10,000-chunk answer split at 30,000 random places", async () => {
    const deltas = Array.from({ length: 10_000 }, (_, i) => `t${i}${i % 7 === 0 ? "é😀" : ""} `);
    const bytes = encoder.encode(sseOf(deltas));
    const pieces = cutAt(bytes, randomCuts(bytes.length, 30_000, 10));
    const {
      text,
      deltas: received,
      errors
    } = await withDeadline(streamedText(providerOf(pieces)), 60_000, "streamText");
    expect(errors).toEqual([]);
    expect(received).toBe(10_000);
    expect(text).toBe(deltas.join(""));
  }, 90_000);
});

describe("a ten-minute answer (provider time on a controlled clock)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const IDLE_MS = 60_000;
  // 600 s of answer: a piece every 5 s, every event split in three pieces.
  const deltas = Array.from({ length: 40 }, (_, i) => `part ${i} — ünïcödé ✓ `);
  const bytes = encoder.encode(sseOf(deltas));
  const eventCount = deltas.length + 3;

  async function runOnFakeClock(gapMs: (index: number) => number) {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const pieces = cutAt(bytes, randomCuts(bytes.length, eventCount * 3 - 1, 600));
    const provider = providerOf(pieces, (index) => new Promise((resolve) => setTimeout(resolve, gapMs(index))));
    const startedAt = Date.now();
    let finished = false;
    const reading = readGuarded(provider, IDLE_MS).finally(() => {
      finished = true;
    });
    // Two hours of provider time at most: a hung stream fails here, not by the test's timeout.
    for (let ticks = 0; !finished && ticks < 7_200; ticks++) await vi.advanceTimersByTimeAsync(1_000);
    expect(finished).toBe(true);
    return { text: decoder.decode(concat(await reading)), elapsedMs: Date.now() - startedAt, pieces: pieces.length };
  }

  it("is passed on in full however long it streams, as long as bytes keep coming", async () => {
    const { text, elapsedMs, pieces } = await runOnFakeClock(() => 600_000 / (eventCount * 3));
    expect(pieces).toBe(eventCount * 3);
    expect(elapsedMs).toBeGreaterThanOrEqual(595_000);
    expect(text).toBe(decoder.decode(bytes));
    expect(text).not.toContain("rooms_idle_timeout");
  });

  it("is still ended by the idle timeout when the provider falls silent mid-line", async () => {
    const { text } = await runOnFakeClock((index) => (index === 50 ? IDLE_MS + 1_000 : 5_000));
    expect(text).toContain("rooms_idle_timeout");
    expect(text.length).toBeLessThan(decoder.decode(bytes).length);
  });
});

describe("the fake provider's split option over real HTTP", () => {
  it("delivers reads that end mid-line and mid-character, and the guard rebuilds the exact text", async () => {
    const fake = await startFakeOpenAI();
    try {
      const words = "héllo 中文 😀👩‍💻 ✓";
      const body = JSON.stringify({
        model: "fake-model",
        stream: true,
        messages: [{ role: "user", content: `[[fake:split=3,piece=5]] ${words}` }]
      });
      const raw = await fetch(`${fake.url}/chat/completions`, { method: "POST", body });
      const reads: Uint8Array[] = [];
      const rawReader = raw.body!.getReader();
      for (let read = await rawReader.read(); !read.done; read = await rawReader.read()) reads.push(read.value);
      expect(reads.some((r) => r.at(-1) !== 0x0a)).toBe(true);
      expect(reads.some((r) => r[0] >= 0x80 && r[0] < 0xc0)).toBe(true); // a read starting inside a character
      expect(decoder.decode(concat(reads))).toContain("[DONE]");

      const openai = createOpenAI({
        baseURL: fake.url,
        apiKey: "k",
        fetch: createStreamGuardFetch({ idleTimeoutMs: 5_000 })
      });
      const result = streamText({ model: openai.chat("fake-model"), prompt: `[[fake:split=3,piece=5]] ${words}` });
      expect(await withDeadline(Promise.resolve(result.text), 10_000, "streamText")).toBe(`Echo: ${words}`);
    } finally {
      await fake.close();
    }
  });
});
