import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDeltaCoalescer } from "@/server/domain/turns/coalesce-deltas";

type Part = { type: string; id?: string; text?: string; providerMetadata?: unknown };

/** A clock the test moves by hand: timers fire only inside `advance`. */
function manualClock() {
  let now = 0;
  let nextId = 0;
  const pending = new Map<number, { at: number; run: () => void }>();
  return {
    timers: {
      set: (run: () => void, ms: number) => {
        const id = nextId++;
        pending.set(id, { at: now + ms, run });
        return id;
      },
      clear: (handle: unknown) => {
        pending.delete(handle as number);
      }
    },
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...pending.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        pending.delete(due[0]);
        now = due[1].at;
        due[1].run();
        await Promise.resolve();
      }
      now = until;
      await Promise.resolve();
    },
    get now() {
      return now;
    }
  };
}

/** Runs parts through the coalescer, `gapMs[i]` of clock time before part i; records when each output left. */
async function run(parts: Part[], gapsMs: number[], { windowMs = 16, tailMs = 100, lateTimers = false } = {}) {
  const clock = manualClock();
  // Late timers: never fire while parts keep coming (as workerd's, behind a stream's pending reads).
  const timers = lateTimers ? { set: () => null, clear: () => {} } : clock.timers;
  const coalescer = createDeltaCoalescer<Part>({ windowMs, timers, now: () => clock.now });
  const out: { part: Part; at: number }[] = [];
  const reading = (async () => {
    const reader = coalescer.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out.push({ part: value, at: clock.now });
    }
  })();
  const writer = coalescer.writable.getWriter();
  for (let i = 0; i < parts.length; i++) {
    await clock.advance(gapsMs[i] ?? 0);
    await writer.write(parts[i]);
    await Promise.resolve();
  }
  await clock.advance(tailMs);
  await writer.close();
  await reading;
  return out;
}

const delta = (text: string, id = "t1"): Part => ({ type: "text-delta", id, text });

describe("coalescing deltas", () => {
  it("sends the first delta at once and merges a burst into one frame per window", async () => {
    const out = await run([delta("a"), delta("b"), delta("c"), delta("d")], [0, 1, 1, 1]);
    expect(out.map((o) => o.part.text)).toEqual(["a", "bcd"]);
    expect(out[0].at).toBe(0);
    expect(out[1].at).toBe(16);
  });

  it("sends paced deltas wider apart than the window one by one, without delay", async () => {
    const out = await run([delta("a"), delta("b"), delta("c")], [0, 40, 40]);
    expect(out.map((o) => [o.part.text, o.at])).toEqual([
      ["a", 0],
      ["b", 40],
      ["c", 80]
    ]);
  });

  it("sends a delta written a window after the last one at once, without waiting for a late timer", async () => {
    const out = await run([delta("a"), delta("b"), delta("c"), delta("d")], [0, 40, 40, 40], { lateTimers: true });
    expect(out.map((o) => [o.part.text, o.at])).toEqual([
      ["a", 0],
      ["b", 40],
      ["c", 80],
      ["d", 120]
    ]);
  });

  it("sends held text with the next delta once the window has passed, when the timer is late", async () => {
    const out = await run([delta("a"), delta("b"), delta("c"), delta("d")], [0, 1, 1, 20], { lateTimers: true });
    expect(out.map((o) => [o.part.text, o.at])).toEqual([
      ["a", 0],
      ["bcd", 22]
    ]);
  });

  it("sends the first delta at once after a start part", async () => {
    const out = await run([{ type: "text-start", id: "t1" }, delta("a"), delta("b")], [0, 0, 1], { lateTimers: true });
    expect(out.map((o) => [o.part.type === "text-delta" ? o.part.text : o.part.type, o.at])).toEqual([
      ["text-start", 0],
      ["a", 0],
      ["b", 101] // held until the end of the stream: the timer never fired
    ]);
  });

  it("flushes what it holds before any other part, keeping order", async () => {
    const out = await run([delta("a"), delta("b"), { type: "text-end", id: "t1" }, { type: "finish" }], [0, 1, 1, 0]);
    expect(out.map((o) => (o.part.type === "text-delta" ? o.part.text : o.part.type))).toEqual([
      "a",
      "b",
      "text-end",
      "finish"
    ]);
    expect(out[1].at).toBe(2); // not held until the window closes
  });

  it("flushes at the end of the stream", async () => {
    const out = await run([delta("a"), delta("b")], [0, 1], { tailMs: 0 });
    expect(out.map((o) => [o.part.text, o.at])).toEqual([
      ["a", 0],
      ["b", 1]
    ]);
  });

  it("never merges different parts, kinds or deltas with provider metadata", async () => {
    const out = await run(
      [
        delta("a", "t1"),
        delta("b", "t1"),
        delta("c", "t2"),
        { type: "reasoning-delta", id: "t2", text: "r" },
        { type: "text-delta", id: "t2", text: "m", providerMetadata: { x: {} } }
      ],
      [0, 1, 1, 1, 1]
    );
    expect(out.map((o) => `${o.part.type}:${o.part.id}:${o.part.text}`)).toEqual([
      "text-delta:t1:a",
      "text-delta:t1:b",
      "text-delta:t2:c",
      "reasoning-delta:t2:r",
      "text-delta:t2:m"
    ]);
  });

  it("keeps every character and every part's order, and sends at most one delta per window (property)", async () => {
    const partArb = fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .record({ id: fc.constantFrom("t1", "t2"), text: fc.string({ unit: "binary", minLength: 1, maxLength: 4 }) })
          .map((p) => delta(p.text, p.id))
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Part>({ type: "text-end", id: "t1" }, { type: "tool-call" }, { type: "finish-step" })
      }
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(partArb, fc.integer({ min: 0, max: 40 })), { maxLength: 60 }),
        async (steps) => {
          const parts = steps.map(([p]) => p);
          const out = await run(
            parts,
            steps.map(([, gap]) => gap)
          );
          const outParts = out.map((o) => o.part);
          // Nothing lost, nothing reordered: the same sequence once runs of deltas are joined.
          const joined = (list: Part[]) => {
            const res: string[] = [];
            for (const p of list) {
              const key = p.type === "text-delta" ? `delta:${p.id}:` : `${p.type}`;
              const last = res.at(-1);
              if (p.type === "text-delta" && last?.startsWith(key)) res[res.length - 1] = last + p.text;
              else res.push(p.type === "text-delta" ? key + p.text : key);
            }
            return res;
          };
          expect(joined(outParts)).toEqual(joined(parts));
          // Throttle: within one run of deltas (same id, nothing else between), a delta leaves at
          // least one window after the delta two before it: the first at once, then one per window.
          let runTimes: number[] = [];
          let runKey = "";
          for (const { part, at } of out) {
            const key = part.type === "text-delta" ? `delta:${part.id}` : "";
            if (key !== runKey) runTimes = [];
            runKey = key;
            if (!key) continue;
            runTimes.push(at);
            const n = runTimes.length;
            if (n >= 3) expect(runTimes[n - 1] - runTimes[n - 3]).toBeGreaterThanOrEqual(16);
          }
        }
      ),
      { numRuns: 200 }
    );
  });
});
