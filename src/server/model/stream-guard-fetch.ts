/**
 * A fetch for the provider that turns two transport failures into ordinary
 * provider errors, so they end the answer like any other failure (with a
 * reason, partial text kept) instead of parking the turn or sending it into
 * the framework's recovery loop, which would re-ask and repeat the text:
 * - the provider goes silent (no headers, or no bytes mid-stream) for
 *   `idleTimeoutMs`: the upstream request is aborted;
 * - the connection drops mid-stream.
 * Both become an OpenAI-style `data: {"error": …}` event at a line boundary.
 * A Stop from the user still aborts as an abort, not as an error.
 */

const IDLE_TIMEOUT_CODE = "rooms_idle_timeout";
const CONNECTION_LOST_CODE = "rooms_connection_lost";

class ProviderIdleTimeoutError extends Error {
  readonly code = IDLE_TIMEOUT_CODE;
  constructor(ms: number) {
    super(`The model provider sent nothing for ${ms} ms.`);
    this.name = "TimeoutError";
  }
}

function sseError(code: string, message: string): Uint8Array {
  return new TextEncoder().encode(`data: ${JSON.stringify({ error: { message, type: code, code } })}\n\n`);
}

const NEWLINE_BYTE = 0x0a;
const NEWLINE = new Uint8Array([NEWLINE_BYTE]);

function concatBytes(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function createStreamGuardFetch(opts: { idleTimeoutMs: number; fetch?: typeof fetch }): typeof fetch {
  const baseFetch = opts.fetch ?? fetch;
  const idleMs = opts.idleTimeoutMs;

  return async (input, init) => {
    const callerSignal = init?.signal ?? undefined;
    const upstream = new AbortController();
    const onCallerAbort = () => upstream.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });

    const guard: Guard = { idleMs, upstream, callerSignal };
    const response = await headersWithin(guard, () => baseFetch(input, { ...init, signal: upstream.signal }));
    const isStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    if (!response.ok || !response.body || !isStream) return response;
    const body = guardedLines(response.body.getReader(), guard);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** One request's guard: the idle limit, the upstream request's controller, and the caller's own signal. */
interface Guard {
  idleMs: number;
  upstream: AbortController;
  callerSignal: AbortSignal | undefined;
}

/** The response headers, or a 504 once the provider has sent nothing for the idle limit. */
async function headersWithin(guard: Guard, request: () => Promise<Response>): Promise<Response> {
  const { idleMs, upstream, callerSignal } = guard;
  const headersTimer = setTimeout(() => upstream.abort(new ProviderIdleTimeoutError(idleMs)), idleMs);
  try {
    return await request();
  } catch (error) {
    if (!callerSignal?.aborted && upstream.signal.reason instanceof ProviderIdleTimeoutError) {
      // As a gateway would answer: a 504 the SDK retries a bounded number
      // of times, then reports with its status.
      return Response.json(
        { error: { message: upstream.signal.reason.message, type: IDLE_TIMEOUT_CODE, code: IDLE_TIMEOUT_CODE } },
        { status: 504 }
      );
    }
    throw error;
  } finally {
    clearTimeout(headersTimer);
  }
}

/**
 * The event stream passed on whole lines at a time, ended by our own error
 * event when the provider goes idle or the connection drops mid-answer.
 */
function guardedLines(reader: ReadableStreamDefaultReader<Uint8Array>, guard: Guard): ReadableStream<Uint8Array> {
  const { idleMs, upstream, callerSignal } = guard;
  // Only whole lines are passed on, so a cut never leaves half a JSON
  // event in front of our error event. Lines are cut on the bytes: a
  // newline byte never occurs inside a multi-byte UTF-8 character, so
  // nothing is decoded and re-encoded on the way through.
  // The unfinished last line, in the pieces it came in (joined once, when
  // its line break arrives, so a long line costs linear time).
  let pending: Uint8Array[] = [];
  let finished = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;

  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const failWith = (code: string, message: string) => {
        if (finished) return;
        finished = true;
        controller.enqueue(sseError(code, message));
        controller.close();
      };
      // A pull must enqueue, close or fail before it returns: a stream
      // does not pull again after a pull that enqueued nothing, so a read
      // holding no line break (providers split lines across reads) would
      // otherwise park the answer for ever. Hence the loop.
      while (!finished) {
        idleTimer = setTimeout(() => {
          failWith(IDLE_TIMEOUT_CODE, `The model provider sent nothing for ${idleMs} ms.`);
          upstream.abort(new ProviderIdleTimeoutError(idleMs));
        }, idleMs);
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          clearTimeout(idleTimer);
          if (finished) return;
          if (callerSignal?.aborted) {
            finished = true;
            controller.error(error);
            return;
          }
          failWith(CONNECTION_LOST_CODE, "The connection to the model provider was lost mid-answer.");
          return;
        }
        clearTimeout(idleTimer);
        if (finished) return;
        if (read.done) {
          if (pending.length > 0) controller.enqueue(concatBytes([...pending, NEWLINE]));
          finished = true;
          controller.close();
          return;
        }
        const bytes = read.value;
        const cut = bytes.lastIndexOf(NEWLINE_BYTE);
        if (cut < 0) {
          pending.push(bytes);
          continue;
        }
        const lines = bytes.subarray(0, cut + 1);
        controller.enqueue(pending.length > 0 ? concatBytes([...pending, lines]) : lines);
        pending = cut + 1 < bytes.length ? [bytes.subarray(cut + 1)] : [];
        return;
      }
    },
    cancel: async (reason) => {
      clearTimeout(idleTimer);
      finished = true;
      upstream.abort(reason);
      await reader.cancel(reason).catch((error: unknown) => console.warn("[provider] cancel after failure:", error));
    }
  });
}
