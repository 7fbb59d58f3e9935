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
 * - the first delta goes out at once;
 * - while deltas keep coming, at most one merged delta per `windowMs`;
 * - any other part (text-end, tool call, finish, error, abort…) first
 *   flushes what is held, so order is kept; the end of the stream flushes too.
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

/** The throttling merge itself, over any stream of parts shaped like the AI SDK's. */
export function createDeltaCoalescer<PART extends { type: string }>(
  options: { windowMs?: number; timers?: Timers } = {}
): TransformStream<PART, PART> {
  const windowMs = options.windowMs ?? DELTA_WINDOW_MS;
  const timers = options.timers ?? realTimers;
  let held: Delta | null = null;
  let window: unknown = null;
  let controller: TransformStreamDefaultController<PART> | null = null;

  const release = () => {
    if (!held) return;
    const part = held;
    held = null;
    try {
      controller?.enqueue(part as unknown as PART);
    } catch {
      // The reader went away (a stop, a dropped stream): nothing to send to.
    }
  };
  const closeWindow = () => {
    if (window !== null) timers.clear(window);
    window = null;
  };
  const openWindow = () => {
    window = timers.set(() => {
      window = null;
      if (!held) return;
      release();
      openWindow();
    }, windowMs);
  };

  return new TransformStream<PART, PART>({
    start(c) {
      controller = c;
    },
    transform(part, c) {
      if (!isDelta(part)) {
        release();
        c.enqueue(part);
        return;
      }
      // Deltas carrying provider metadata are passed on as they are.
      const mergeable = part.providerMetadata === undefined;
      if (held && mergeable && held.type === part.type && held.id === part.id) {
        held.text += part.text;
        return;
      }
      release();
      if (window === null) {
        c.enqueue(part);
        openWindow();
        return;
      }
      if (!mergeable) {
        c.enqueue(part);
        return;
      }
      held = { ...part };
    },
    flush() {
      closeWindow();
      release();
      controller = null;
    }
  });
}

/** `streamText({ experimental_transform: coalesceDeltas() })`. */
export function coalesceDeltas<TOOLS extends ToolSet>(
  options: { windowMs?: number; timers?: Timers } = {}
): StreamTextTransform<TOOLS> {
  return () => createDeltaCoalescer<TextStreamPart<TOOLS>>(options);
}
