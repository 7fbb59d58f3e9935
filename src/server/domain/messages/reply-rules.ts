/**
 * Replies, the server's rules (the wire shape is shared/replies.ts). A
 * client names the message it replies to by id, and a client id never names
 * a stored row unchecked: the room looks the id up in its own storage (one
 * lookup by id, whatever the room's size) and refuses the send with
 * `bad_request:reply_to` when it names no stored message of this room. What
 * is stored is the server's quote of that message, never the client's.
 * The model sees a reply with a short quote of what it replies to. Pure:
 * unit-tested in Node.
 */
import type { UIMessage } from "ai";
import { AppError } from "@/server/app-error";
import { type ReplyRef, ReplyToId, readReplyRef, replyRefOf } from "@/shared/replies";
import { normalizeMessage } from "./persisted-message";

export type ReplyRequest =
  | { kind: "none" }
  | { kind: "reply"; messageId: string }
  | { kind: "invalid"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The id a socket chat request asks to reply to: `metadata.replyTo` of its
 * last message, on a new message or an edit. A quote object there is a
 * stored message's own metadata sent back (a regeneration or an edit of a
 * reply), not a request: it is ignored, as is everything on a regeneration.
 * Bodies that do not mention `replyTo` are not parsed.
 */
export function requestedReplyTo(rawBody: unknown): ReplyRequest {
  if (typeof rawBody !== "string" || !rawBody.includes('"replyTo"')) return { kind: "none" };
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { kind: "none" }; // the chat-request guard reports bad JSON
  }
  if (!isRecord(body) || !Array.isArray(body.messages)) return { kind: "none" };
  if ((body.trigger ?? "submit-message") !== "submit-message") return { kind: "none" };
  const last: unknown = body.messages.at(-1);
  const replyTo = isRecord(last) && isRecord(last.metadata) ? last.metadata.replyTo : undefined;
  if (replyTo === undefined || isRecord(replyTo)) return { kind: "none" };
  const parsed = ReplyToId.safeParse(replyTo);
  return parsed.success
    ? { kind: "reply", messageId: parsed.data }
    : { kind: "invalid", message: parsed.error.issues[0]?.message ?? "replyTo must be a message id." };
}

/** What a reply keeps of a stored row (as the room's storage answers a lookup by id), or null: no message. */
export function replyTargetOf(stored: unknown, now = Date.now()): ReplyRef | null {
  if (stored === null || stored === undefined) return null;
  const message = normalizeMessage(stored, now);
  return message ? replyRefOf(message) : null;
}

/** The refusal of a reply to a message this room does not hold. */
export function replyRefused(messageId: string): AppError {
  return new AppError(
    "bad_request:reply_to",
    400,
    `replyTo "${messageId.slice(0, 128)}" is not a message of this room: reply to a message that is in it.`
  );
}

/** The line a reply opens with in the model's context: who it replies to, and their first words. */
export function quotePrefix(reply: ReplyRef): string {
  return `(in reply to ${reply.name}: "${reply.text}")\n`;
}

/**
 * The conversation as the model reads it: a reply opens with a quote of
 * what it replies to (quotePrefix). Only replies are copied; the quote is
 * stored with the reply, so this costs no lookup.
 */
export function withReplyQuotes(messages: readonly UIMessage[]): UIMessage[] {
  return messages.map((message) => {
    if (message.role !== "user") return message;
    const reply = readReplyRef((message.metadata as { replyTo?: unknown } | undefined)?.replyTo);
    if (!reply) return message;
    return { ...message, parts: [{ type: "text", text: quotePrefix(reply) }, ...message.parts] };
  });
}
