/**
 * The AIChatAgent wire frames a client sends and receives, for tests that
 * talk to rooms over raw WebSockets (in workerd and from Node alike).
 */

/** The frame useAgentChat sends for a new user message (or a regenerate). */
export function chatRequest(
  text: string,
  opts: {
    author?: string;
    history?: unknown[];
    trigger?: string;
    messageId?: string;
    /** W3C trace context, as the app's client sends it with a request */
    traceparent?: string;
    /** More parts after the text (e.g. file parts naming the room's files) */
    parts?: unknown[];
  } = {}
) {
  const id = crypto.randomUUID();
  const message = {
    id: opts.messageId ?? crypto.randomUUID(),
    role: "user",
    parts: [{ type: "text", text }, ...(opts.parts ?? [])],
    ...(opts.author ? { metadata: { author: opts.author } } : {})
  };
  const messages = opts.trigger === "regenerate-message" ? (opts.history ?? []) : [...(opts.history ?? []), message];
  return {
    id,
    message,
    frame: {
      type: "cf_agent_use_chat_request",
      id,
      init: {
        method: "POST",
        body: JSON.stringify({
          messages,
          trigger: opts.trigger ?? "submit-message",
          ...(opts.traceparent ? { traceparent: opts.traceparent } : {})
        })
      }
    }
  };
}

export const isResponse = (requestId: string) => (f: any) =>
  f?.type === "cf_agent_use_chat_response" && f.id === requestId;
export const isDone = (requestId: string) => (f: any) => isResponse(requestId)(f) && f.done === true;

/** The UI message chunks of one request, in arrival order. */
export function chunksOf(frames: unknown[], requestId: string): any[] {
  return frames
    .filter((f: any) => isResponse(requestId)(f) && typeof f.body === "string" && f.body.length > 0)
    .map((f: any) => JSON.parse(f.body));
}

/** The streamed text of one request. */
export function textOf(frames: unknown[], requestId: string): string {
  return chunksOf(frames, requestId)
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta)
    .join("");
}

type TextPart = { type: "text"; text: string };

/** The text parts of a stored message, joined. */
export function messageText(message: { parts?: ReadonlyArray<{ type: string }> } | null | undefined): string {
  return (message?.parts ?? [])
    .filter((p): p is TextPart => p.type === "text")
    .map((p) => p.text)
    .join("");
}
