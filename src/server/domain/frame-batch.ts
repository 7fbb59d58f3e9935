/**
 * Batching what a room facet broadcasts to its sockets (pure; the room wires
 * it in agents/room/broadcast-batch.ts, the overseer unpacks it in
 * agents/overseer/frame-batches.ts).
 *
 * In agents 0.32 every broadcast of a facet is one RPC to the root Durable
 * Object, and each waits for the previous one to finish (the framework's
 * broadcast "operation tail"), so a burst of N frames costs N round trips in
 * series: a turn's start, start-step and text-start each cross alone before
 * the first token can. The batcher sends the first frame after an idle spell
 * at once, by the framework's own path; frames written while a send is in
 * flight wait for it and then go as one batch. So it never adds a delay the framework did not
 * already impose, and a backlog costs one round trip, not one per frame.
 */

/** What a broadcast carries (the framework's `broadcast` message type). */
export type RelayedFrameMessage = string | ArrayBuffer | ArrayBufferView;

/** One broadcast: the frame and the connection ids it must not reach. */
export interface RelayedFrame {
  message: RelayedFrameMessage;
  without?: string[];
}

/** Several broadcasts of one facet, in order, as one RPC argument. */
export interface FrameBatch {
  kind: typeof FRAME_BATCH_KIND;
  frames: RelayedFrame[];
}

export const FRAME_BATCH_KIND = "rooms_frame_batch";

function isFrameMessage(value: unknown): value is RelayedFrameMessage {
  return typeof value === "string" || value instanceof ArrayBuffer || ArrayBuffer.isView(value);
}

/**
 * Whether an RPC argument is a batch (a real frame is a string or bytes,
 * never a plain object, so the two cannot be confused).
 */
export function isFrameBatch(value: unknown): value is FrameBatch {
  if (typeof value !== "object" || value === null || isFrameMessage(value)) return false;
  const batch = value as Partial<FrameBatch>;
  return (
    batch.kind === FRAME_BATCH_KIND &&
    Array.isArray(batch.frames) &&
    batch.frames.every(
      (frame) =>
        typeof frame === "object" &&
        frame !== null &&
        isFrameMessage(frame.message) &&
        (frame.without === undefined ||
          (Array.isArray(frame.without) && frame.without.every((id) => typeof id === "string")))
    )
  );
}

/**
 * The connections every frame of a batch excludes. The framework skips a
 * broadcast that no connection outside `without` would receive; given this
 * set it skips a batch exactly when none of its frames has a recipient.
 */
export function commonExclusions(frames: readonly RelayedFrame[]): string[] | undefined {
  let common: string[] | null = null;
  for (const frame of frames) {
    if (!frame.without || frame.without.length === 0) return undefined;
    const mine = new Set(frame.without);
    common = (common ?? [...mine]).filter((id) => mine.has(id));
    if (common.length === 0) return undefined;
  }
  return common ?? undefined;
}

type Send = (message: RelayedFrameMessage | FrameBatch, without?: string[]) => Promise<void>;

export class FrameBatcher {
  #queue: RelayedFrame[] = [];
  #inFlight = 0;

  /**
   * @param send hands one frame, or a batch, to the framework's ordered
   *   broadcast path; resolves when it has been delivered (or failed).
   */
  constructor(private readonly send: Send) {}

  push(message: RelayedFrameMessage, without?: string[]) {
    this.#queue.push(without && without.length > 0 ? { message, without: [...without] } : { message });
    // Nothing in flight: the frame goes now, by the framework's own path
    // (within a socket's message handler, its reply bridge). Otherwise the
    // running send's completion takes it with everything written meanwhile.
    if (this.#inFlight === 0) this.flush();
  }

  /**
   * Hands everything queued to the framework now, as one send. Called
   * before any connection operation (a send to one socket, a close), so that
   * operation is ordered after these frames exactly as it would have been
   * had each frame gone out when it was written.
   */
  flush() {
    if (this.#queue.length === 0) return;
    const frames = this.#queue;
    this.#queue = [];
    const sent =
      frames.length === 1
        ? this.send(frames[0].message, frames[0].without)
        : this.send({ kind: FRAME_BATCH_KIND, frames }, commonExclusions(frames));
    this.#inFlight++;
    const settle = () => {
      this.#inFlight--;
      if (this.#inFlight === 0) this.flush();
    };
    sent.then(settle, (error: unknown) => {
      console.error("[rooms] broadcast batch failed:", error);
      settle();
    });
  }

  /** Frames written and not yet handed to the framework (tests). */
  get queued(): number {
    return this.#queue.length;
  }
}
