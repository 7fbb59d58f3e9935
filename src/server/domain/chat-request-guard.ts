/**
 * What a room accepts from a client's chat request. The AIChatAgent protocol
 * has the client send its transcript with every message, and the framework
 * would store it as sent, and on an edit or regenerate delete whatever the
 * client's list lacks. Clients are untrusted and often hold only the newest
 * page, so the request is rebuilt from the room's own transcript: the client
 * contributes only which message is new, edited or regenerated, and the text
 * of a new or edited user message (bounded). No one can alter history by
 * sending it back changed, and no stale client can delete what it never saw.
 */
import type { UIMessage } from "ai";
import type { MessageAuthor } from "../../shared/identity";

export type GuardResult =
  | {
      ok: true;
      body: string;
      newText: string | null;
      /** The message this request sends or asks to answer again. */
      messageId: string;
      /** The client's W3C trace context, unchecked (see domain/trace.ts). */
      traceparent: string | null;
    }
  | { ok: false; code: "bad_request:body" | "payload_too_large:body"; message: string };

export interface GuardLimits {
  maxMessageLength: number;
  maxMessages: number;
}

const MAX_ID_LENGTH = 128;

function fail(message: string, code: "bad_request:body" | "payload_too_large:body" = "bad_request:body"): GuardResult {
  return { ok: false, code, message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `author` is who sent the frame, as the server knows it: it becomes the
 * message's author, whatever metadata the client put on the message.
 */
export function guardChatRequest(
  rawBody: unknown,
  transcript: readonly UIMessage[],
  limits: GuardLimits,
  author: MessageAuthor | null = null,
  now = Date.now()
): GuardResult {
  if (typeof rawBody !== "string") return fail("A chat request needs a JSON body.");
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return fail("The chat request body is not valid JSON.");
  }
  if (!isRecord(body) || !Array.isArray(body.messages)) return fail("A chat request needs a messages array.");
  const trigger = body.trigger ?? "submit-message";
  if (trigger !== "submit-message" && trigger !== "regenerate-message") return fail("Unknown chat trigger.");
  const incoming = body.messages as unknown[];
  if (incoming.length === 0) return fail("A chat request needs at least one message.");
  if (incoming.length > limits.maxMessages) {
    return fail(`A chat request may carry at most ${limits.maxMessages} messages.`, "payload_too_large:body");
  }
  for (const message of incoming) {
    if (
      !isRecord(message) ||
      typeof message.id !== "string" ||
      message.id.length === 0 ||
      message.id.length > MAX_ID_LENGTH
    ) {
      return fail("Every message needs an id of 1 to 128 characters.");
    }
  }
  const messages = incoming as Array<Record<string, unknown> & { id: string }>;

  const indexOf = new Map(transcript.map((m, i) => [m.id, i]));
  const last = messages[messages.length - 1];
  const traceparent = typeof body.traceparent === "string" ? body.traceparent.slice(0, 512) : null;

  if (trigger === "regenerate-message") {
    // Re-answer the client's last message: the room's transcript up to it.
    const at = indexOf.get(last.id);
    if (at === undefined)
      return fail("That message is not in this room's recent history, so it cannot be regenerated.");
    return {
      ok: true,
      body: JSON.stringify({ messages: transcript.slice(0, at + 1), trigger }),
      newText: null,
      messageId: last.id,
      traceparent
    };
  }

  const at = indexOf.get(last.id);
  if (last.role !== "user" || (at !== undefined && transcript[at].role !== "user"))
    return fail("Only a user message can be sent.");
  const parts = Array.isArray(last.parts) ? last.parts : [];
  const texts: string[] = [];
  for (const part of parts) {
    if (!isRecord(part) || part.type !== "text" || typeof part.text !== "string") {
      return fail("A message may contain text parts only.");
    }
    texts.push(part.text);
  }
  const text = texts.join("");
  if (!text.trim()) return fail("The message is empty.");
  if (text.length > limits.maxMessageLength) {
    return fail(`A message may be at most ${limits.maxMessageLength} characters.`, "payload_too_large:body");
  }
  // Nothing the client sent as metadata is kept.
  const metadata = author ? { author, createdAt: now } : { createdAt: now };
  const message: UIMessage = { id: last.id, role: "user", parts: [{ type: "text", text }], metadata };
  // A new message follows the whole transcript; an edit replaces its
  // original and everything after it.
  const before = at === undefined ? transcript : transcript.slice(0, at);
  const kept = [...before, message];
  const newText = text;
  return { ok: true, body: JSON.stringify({ messages: kept, trigger }), newText, messageId: last.id, traceparent };
}
