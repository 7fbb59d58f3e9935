/**
 * Batching what a room facet broadcasts to its sockets (pure; the room wires
 * it in agents/room/broadcast-batch.ts, the overseer unpacks it in
 * agents/overseer/frame-batches.ts).
 *
 * In agents 0.32 every broadcast of a facet is one RPC to the root Durable
 * Object, and each waits for the previous one to finish (the framework's
 * broadcast "operation tail"), so a burst of N frames costs N round trips in
 * series. The batcher sends a frame written after an idle spell within the
 * same task, together with whatever else the task writes; frames written
 * while a send is in flight wait for it and then go as one batch, so a
 * backlog costs one round trip, not one per frame.
 *
 * Why "within the same task" and not "at once": a facet runs on its
 * overseer's thread, so a call made now is delivered only when the current
 * task (its promise continuations included) is over. Sending the first frame
 * at once gained nothing and cost the frames behind it a round trip: one
 * provider read yields start-step, text-start and the first text-delta a few
 * dozen continuations apart, and the delta waited for the start-step's call
 * to complete, which came only after the facet had parsed the next reads of
 * the answer (measured: 7 ms after the write in dev, against 1.7 for a bare
 * Worker). So a write waits for `GATHER_TURNS` rounds of continuations with no
 * further write, then goes with everything written meanwhile. Not a timer:
 * workerd ran a `setTimeout(0)` only after the pending reads of the answer
 * (10–160 ms late, measured).
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

/**
 * Rounds of promise continuations a written frame waits for another write.
 * The frames of one provider read come 9–14 rounds apart, a turn's closing
 * frames up to 28 (counted in the relay bench).
 */
export const GATHER_TURNS = 40;
/** The longest `delivered()` makes its caller wait (a turn, before its model request). */
export const MAX_DELIVERY_WAIT_MS = 500;
/** However often writes keep coming, a frame waits no longer than this many rounds. */
const MAX_GATHER_TURNS = 8 * GATHER_TURNS;

export class FrameBatcher {
  #queue: RelayedFrame[] = [];
  #inFlight = 0;
  /** Rounds since the last write, and in all, while gathering; null when not gathering. */
  #gathering: { quiet: number; total: number } | null = null;
  /** Waiting for every written frame to be delivered (`delivered`). */
  #idle: Array<() => void> = [];

  /**
   * @param send hands one frame, or a batch, to the framework's ordered
   *   broadcast path; resolves when it has been delivered (or failed).
   */
  constructor(private readonly send: Send) {}

  push(message: RelayedFrameMessage, without?: string[]) {
    this.#queue.push(without && without.length > 0 ? { message, without: [...without] } : { message });
    // A send in flight: its completion takes this frame with everything written meanwhile.
    if (this.#inFlight > 0) return;
    if (this.#gathering) {
      this.#gathering.quiet = 0;
      return;
    }
    const gathering = { quiet: 0, total: 0 };
    this.#gathering = gathering;
    const wait = () => {
      if (this.#gathering !== gathering) return;
      if (++gathering.quiet < GATHER_TURNS && ++gathering.total < MAX_GATHER_TURNS) {
        void Promise.resolve().then(wait);
        return;
      }
      this.#gathering = null;
      if (this.#inFlight === 0) this.flush();
    };
    void Promise.resolve().then(wait);
  }

  /**
   * Hands everything queued to the framework now, as one send. Called
   * before any connection operation (a send to one socket, a close), so that
   * operation is ordered after these frames exactly as it would have been
   * had each frame gone out when it was written.
   */
  flush() {
    this.#gathering = null;
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
      if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
    sent.then(settle, (error: unknown) => {
      console.error("[rooms] broadcast batch failed:", error);
      settle();
    });
  }

  /**
   * Resolves once every frame written so far has been delivered: what is
   * queued goes now, without waiting to gather more. A caller waits no
   * longer than `maxWaitMs`, so a delivery that never completes holds up
   * no turn.
   */
  delivered(maxWaitMs = MAX_DELIVERY_WAIT_MS): Promise<void> {
    this.flush();
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxWaitMs);
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Frames written and not yet handed to the framework (tests). */
  get queued(): number {
    return this.#queue.length;
  }
}
