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

export const IDLE_TIMEOUT_CODE = "rooms_idle_timeout";
export const CONNECTION_LOST_CODE = "rooms_connection_lost";

export class ProviderIdleTimeoutError extends Error {
  readonly code = IDLE_TIMEOUT_CODE;
  constructor(ms: number) {
    super(`The model provider sent nothing for ${ms} ms.`);
    this.name = "TimeoutError";
  }
}

function sseError(code: string, message: string): Uint8Array {
  return new TextEncoder().encode(`data: ${JSON.stringify({ error: { message, type: code, code } })}\n\n`);
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

    const headersTimer = setTimeout(() => upstream.abort(new ProviderIdleTimeoutError(idleMs)), idleMs);
    let response: Response;
    try {
      response = await baseFetch(input, { ...init, signal: upstream.signal });
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

    const isStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    if (!response.ok || !response.body || !isStream) return response;

    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    // Only whole lines are passed on, so a cut never leaves half a JSON
    // event in front of our error event.
    let pending = "";
    let finished = false;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;

    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const failWith = (code: string, message: string) => {
          if (finished) return;
          finished = true;
          controller.enqueue(sseError(code, message));
          controller.close();
        };
        idleTimer = setTimeout(() => {
          failWith(IDLE_TIMEOUT_CODE, `The model provider sent nothing for ${idleMs} ms.`);
          upstream.abort(new ProviderIdleTimeoutError(idleMs));
        }, idleMs);
        try {
          const { done, value } = await reader.read();
          clearTimeout(idleTimer);
          if (finished) return;
          if (done) {
            if (pending) controller.enqueue(encoder.encode(pending + "\n"));
            finished = true;
            controller.close();
            return;
          }
          pending += decoder.decode(value, { stream: true });
          const cut = pending.lastIndexOf("\n");
          if (cut >= 0) {
            controller.enqueue(encoder.encode(pending.slice(0, cut + 1)));
            pending = pending.slice(cut + 1);
          }
        } catch (error) {
          clearTimeout(idleTimer);
          if (finished) return;
          if (callerSignal?.aborted) {
            finished = true;
            controller.error(error);
            return;
          }
          failWith(CONNECTION_LOST_CODE, "The connection to the model provider was lost mid-answer.");
        }
      },
      cancel: async (reason) => {
        clearTimeout(idleTimer);
        finished = true;
        upstream.abort(reason);
        await reader.cancel(reason).catch((error: unknown) => console.warn("[provider] cancel after failure:", error));
      }
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
