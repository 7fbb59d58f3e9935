/**
 * Fewer, fuller frames: merges consecutive text (and reasoning) deltas of one
 * stream over a short window, as a `streamText` transform
 * (`experimental_transform`).
 *
 * Every part the model stream yields becomes, downstream, a stored
 * resumable-stream chunk, a JSON frame, an RPC from the room facet to its
 * overseer and a WebSocket send to every viewer. A fast provider yields a
 * part per token, so the cost of an answer was its token count times all of
 * that. Merged here, at the source, the stored chunks and the frames are the
 * same merged deltas, so resume and recovery replay exactly what viewers saw.
 *
 * Timing (a throttle, per stream; each `streamText` gets its own instance):
 * - a delta written a window or more after the last one sent goes out at
 *   once, the first of a stream included;
 * - while deltas keep coming, at most one merged delta per `windowMs`: what
 *   arrives sooner is held until the window has passed;
 * - any other part (text-end, tool call, finish, error, abort…) first
 *   flushes what is held, so order is kept; the end of the stream flushes too.
 * The window is judged by the clock when a delta arrives; a timer only
 * releases what is held when nothing more arrives. workerd may run a timer
 * only after the pending reads of a stream (a `setTimeout(0)` ran 10–160 ms
 * late in the relay bench), so with a timer alone a paced delta arriving
 * after the window but before the late timer was held, and a fast stream's
 * text waited for the timer instead of going out with the next read.
 * workerd's clock moves with each read, so it is right when a delta arrives.
 *
 * The AI SDK's `smoothStream` does the opposite (splits and delays to pace
 * text), so this is written by hand.
 */
import type { StreamTextTransform, TextStreamPart, ToolSet } from "ai";

const DELTA_WINDOW_MS = 16;

type Timers = {
  set: (run: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
};

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)
};

type Delta = { type: "text-delta" | "reasoning-delta"; id: string; text: string; providerMetadata?: unknown };

function isDelta(part: { type: string }): part is Delta {
  return part.type === "text-delta" || part.type === "reasoning-delta";
}

export interface CoalescerOptions {
  windowMs?: number;
  timers?: Timers;
  /** Milliseconds; `Date.now` by default. */
  now?: () => number;
}

/** The throttling merge itself, over any stream of parts shaped like the AI SDK's. */
export function createDeltaCoalescer<PART extends { type: string }>(
  options: CoalescerOptions = {}
): TransformStream<PART, PART> {
  const windowMs = options.windowMs ?? DELTA_WINDOW_MS;
  const timers = options.timers ?? realTimers;
  const now = options.now ?? (() => Date.now());
  let held: Delta | null = null;
  let timer: unknown = null;
  /** When the last delta went out. */
  let sentAt = Number.NEGATIVE_INFINITY;
  let controller: TransformStreamDefaultController<PART> | null = null;

  const send = (part: PART) => {
    if (isDelta(part)) sentAt = now();
    try {
      controller?.enqueue(part);
    } catch {
      // The reader went away (a stop, a dropped stream): nothing to send to.
    }
  };
  const release = () => {
    if (timer !== null) timers.clear(timer);
    timer = null;
    if (!held) return;
    const part = held;
    held = null;
    send(part as unknown as PART);
  };

  return new TransformStream<PART, PART>({
    start(c) {
      controller = c;
    },
    transform(part) {
      if (!isDelta(part)) {
        release();
        send(part);
        return;
      }
      // Deltas carrying provider metadata are passed on as they are.
      const mergeable = part.providerMetadata === undefined;
      if (held && mergeable && held.type === part.type && held.id === part.id) {
        held.text += part.text;
      } else {
        release();
        if (!mergeable) {
          send(part);
          return;
        }
        held = { ...part };
      }
      if (now() - sentAt >= windowMs) {
        release();
        return;
      }
      timer ??= timers.set(release, Math.max(0, sentAt + windowMs - now()));
    },
    flush() {
      release();
      controller = null;
    }
  });
}

/** `streamText({ experimental_transform: coalesceDeltas() })`. */
export function coalesceDeltas<TOOLS extends ToolSet>(options: CoalescerOptions = {}): StreamTextTransform<TOOLS> {
  return () => createDeltaCoalescer<TextStreamPart<TOOLS>>(options);
}
