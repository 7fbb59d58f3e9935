import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import {
  commonExclusions,
  FRAME_BATCH_KIND,
  type FrameBatch,
  FrameBatcher,
  GATHER_TURNS,
  isFrameBatch,
  MAX_DELIVERY_WAIT_MS,
  type RelayedFrame,
  type RelayedFrameMessage
} from "@/server/domain/sockets/frame-batch";

/** A send the test settles by hand, recording what each call carried. */
function harness() {
  const calls: { message: RelayedFrameMessage | FrameBatch; without?: string[]; settle: () => void }[] = [];
  const batcher = new FrameBatcher(
    (message, without) =>
      new Promise<void>((resolve) => {
        calls.push({ message, without, settle: resolve });
      })
  );
  /** The frames each call carried, as [message, without] in order. */
  const carried = () =>
    calls.map(({ message, without }) =>
      isFrameBatch(message)
        ? message.frames.map((f) => [f.message, f.without])
        : [[message as RelayedFrameMessage, without]]
    );
  return { batcher, calls, carried };
}

/** Runs every promise continuation already queued (no time passes): what a settled send sets off. */
const drainMicrotasks = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe("batching a room's broadcasts to its overseer", () => {
  it("sends a frame written after a quiet spell within the same task, as itself, not wrapped", async () => {
    const { batcher, calls } = harness();
    // A timer queued before the write runs after the task: the frame must be sent by then.
    const sentBeforeTimer = new Promise<number>((resolve) => setTimeout(() => resolve(calls.length), 0));
    batcher.push("a", ["x"]);
    expect(await sentBeforeTimer).toBe(1);
    expect(calls.map((c) => [c.message, c.without])).toEqual([["a", ["x"]]]);
  });

  it("sends the frames one task writes, dozens of continuations apart, as one batch", async () => {
    const { batcher, calls } = harness();
    const sentBeforeTimer = new Promise<number>((resolve) => setTimeout(() => resolve(calls.length), 0));
    batcher.push("start-step", ["p"]);
    for (let i = 0; i < GATHER_TURNS / 2; i++) await Promise.resolve();
    batcher.push("text-start", ["p", "q"]);
    for (let i = 0; i < GATHER_TURNS / 2; i++) await Promise.resolve();
    batcher.push("text-delta");
    expect(calls).toHaveLength(0);
    expect(await sentBeforeTimer).toBe(1);
    expect(calls[0].message).toEqual({
      kind: FRAME_BATCH_KIND,
      frames: [
        { message: "start-step", without: ["p"] },
        { message: "text-start", without: ["p", "q"] },
        { message: "text-delta" }
      ]
    });
    // One frame has no exclusions, so the batch as a whole excludes no one.
    expect(calls[0].without).toBeUndefined();
  });

  it("sends what it gathered once writes stop, even while they came without pause", async () => {
    const { batcher, calls } = harness();
    batcher.push("0");
    // A write every round of continuations: the gathering is capped, so the first send still goes in this task.
    for (let i = 1; i <= 20 * GATHER_TURNS && calls.length === 0; i++) {
      await Promise.resolve();
      batcher.push(String(i));
    }
    expect(calls).toHaveLength(1);
    expect(batcher.queued).toBeGreaterThan(0);
  });

  it("sends the frames written behind a send in flight as one batch, in order, each with its own exclusions", async () => {
    const { batcher, calls } = harness();
    batcher.push("start");
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    batcher.push("start-step", ["p"]);
    batcher.push("text-start", ["p", "q"]);
    batcher.push("text-delta");
    await drainMicrotasks();
    expect(calls).toHaveLength(1);
    calls[0].settle();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1].message).toEqual({
      kind: FRAME_BATCH_KIND,
      frames: [
        { message: "start-step", without: ["p"] },
        { message: "text-start", without: ["p", "q"] },
        { message: "text-delta" }
      ]
    });
    expect(calls[1].without).toBeUndefined();
  });

  it("holds frames written while a send is in flight and sends them as one batch when it completes", async () => {
    const { batcher, calls, carried } = harness();
    batcher.push("1");
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    for (const frame of ["2", "3", "4"]) {
      batcher.push(frame);
      await drainMicrotasks(); // the first send has not completed
    }
    expect(calls).toHaveLength(1);
    expect(batcher.queued).toBe(3);
    calls[0].settle();
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(carried()).toEqual([
      [["1", undefined]],
      [
        ["2", undefined],
        ["3", undefined],
        ["4", undefined]
      ]
    ]);
  });

  it("hands queued frames over at once when flushed (before a connection operation), behind the one in flight", async () => {
    const { batcher, calls, carried } = harness();
    batcher.push("1");
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    batcher.push("2");
    batcher.push("3");
    batcher.flush(); // a send to one socket is about to be routed
    expect(calls).toHaveLength(2);
    batcher.push("4");
    calls[0].settle();
    await drainMicrotasks();
    expect(calls).toHaveLength(2); // "4" waits for every send in flight
    calls[1].settle();
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(carried()).toEqual([
      [["1", undefined]],
      [
        ["2", undefined],
        ["3", undefined]
      ],
      [["4", undefined]]
    ]);
  });

  it("says when everything written is delivered: queued frames go at once, and it waits for every send in flight", async () => {
    const { batcher, calls, carried } = harness();
    await expect(batcher.delivered()).resolves.toBeUndefined(); // nothing written
    batcher.push("1");
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    batcher.push("2");
    let delivered = false;
    const waiting = batcher.delivered().then(() => {
      delivered = true;
    });
    expect(calls).toHaveLength(2); // "2" went at once, behind the send in flight
    calls[0].settle();
    await drainMicrotasks();
    expect(delivered).toBe(false);
    calls[1].settle();
    await waiting;
    expect(carried()).toEqual([[["1", undefined]], [["2", undefined]]]);
  });

  it("stops making its caller wait for a delivery that never completes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const { batcher, calls } = harness();
      batcher.push("1");
      await vi.waitFor(() => expect(calls).toHaveLength(1));
      let delivered = false;
      const waiting = batcher.delivered().then(() => {
        delivered = true;
      });
      await vi.advanceTimersByTimeAsync(MAX_DELIVERY_WAIT_MS - 1);
      expect(delivered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await waiting;
      expect(delivered).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps going after a failed send", async () => {
    const sent: string[] = [];
    let fail = true;
    const batcher = new FrameBatcher(async (message) => {
      sent.push(isFrameBatch(message) ? message.frames.map((f) => f.message).join("+") : String(message));
      if (fail) {
        fail = false;
        throw new Error("overseer unreachable");
      }
    });
    const errors = console.error;
    console.error = () => {};
    try {
      batcher.push("a");
      await vi.waitFor(() => expect(sent).toEqual(["a"]));
      batcher.push("b");
      await vi.waitFor(() => expect(sent).toEqual(["a", "b"]));
    } finally {
      console.error = errors;
    }
    expect(sent).toEqual(["a", "b"]);
  });

  it("delivers every frame exactly once and in order, whatever the timing of writes, flushes and completions", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("push", "flush", "settle", "drain"), { minLength: 1, maxLength: 60 }),
        async (steps) => {
          const { batcher, calls, carried } = harness();
          let next = 0;
          let settled = 0;
          for (const step of steps) {
            if (step === "push") batcher.push(String(next++));
            else if (step === "flush") batcher.flush();
            else if (step === "settle" && settled < calls.length) calls[settled++].settle();
            else await drainMicrotasks();
          }
          // Drain: settle everything until nothing is left.
          for (let rounds = 0; rounds < 200 && (settled < calls.length || batcher.queued > 0); rounds++) {
            while (settled < calls.length) calls[settled++].settle();
            await drainMicrotasks();
          }
          const order = carried().flatMap((frames) => frames.map(([message]) => message));
          expect(order).toEqual(Array.from({ length: next }, (_, i) => String(i)));
        }
      ),
      { numRuns: 200 }
    );
  });
});

describe("a frame batch on the wire", () => {
  it("is told apart from every real frame", () => {
    const batch: FrameBatch = { kind: FRAME_BATCH_KIND, frames: [{ message: "a" }, { message: "b", without: ["x"] }] };
    expect(isFrameBatch(batch)).toBe(true);
    expect(isFrameBatch(structuredClone(batch))).toBe(true);
    expect(isFrameBatch(JSON.stringify(batch))).toBe(false);
    expect(isFrameBatch(new TextEncoder().encode("{}"))).toBe(false);
    expect(isFrameBatch(new ArrayBuffer(4))).toBe(false);
    expect(isFrameBatch({ kind: FRAME_BATCH_KIND, frames: [{ message: 42 }] })).toBe(false);
    expect(isFrameBatch({ kind: FRAME_BATCH_KIND, frames: [{ message: "a", without: [1] }] })).toBe(false);
    expect(isFrameBatch({ kind: "other", frames: [] })).toBe(false);
  });

  it("excludes from the whole batch only the connections every frame excludes", () => {
    const frames = (...withouts: (string[] | undefined)[]): RelayedFrame[] =>
      withouts.map((without, i) => ({ message: String(i), without }));
    expect(commonExclusions(frames(["a", "b"], ["b", "c"], ["b"]))).toEqual(["b"]);
    expect(commonExclusions(frames(["a"], ["b"]))).toBeUndefined();
    expect(commonExclusions(frames(["a"], undefined))).toBeUndefined();
    expect(commonExclusions(frames(["a", "b"], ["a", "b"]))?.sort()).toEqual(["a", "b"]);
  });
});
