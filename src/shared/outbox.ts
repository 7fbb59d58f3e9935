/**
 * A message sent from a client's outbox: the chat request carries a client
 * message id, which is also the id of the stored message. The room stores a
 * given id at most once, so an outbox may resend after any disconnect (or a
 * server restart) without making duplicates. Runtime-safe for the browser.
 */
import type { FileRef } from "./files";
import type { ReplyRef } from "./replies";

/** Ids the client generates (crypto.randomUUID() or similar). */
export const CLIENT_MESSAGE_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

export interface OutboxSend {
  /** The client message id; the room stores the message under this id. */
  id: string;
  text: string;
  /** Files of the room the message carries (their parts; the room checks each and writes its own). */
  files?: FileRef[];
  /** When it was written (the room writes its own time and the author). */
  createdAt: number;
  /** The message it replies to, quoted as the sender saw it; only the id goes out (the room writes its own quote). */
  replyTo?: ReplyRef;
}

/** The `cf_agent_use_chat_request` frame for one outbox send. */
export function outboxRequestFrame(requestId: string, send: OutboxSend): string {
  const message = {
    id: send.id,
    role: "user",
    parts: [{ type: "text", text: send.text }, ...(send.files ?? [])],
    ...(send.replyTo ? { metadata: { replyTo: send.replyTo.id } } : {})
  };
  return JSON.stringify({
    type: "cf_agent_use_chat_request",
    id: requestId,
    init: {
      method: "POST",
      body: JSON.stringify({ messages: [message], trigger: "submit-message", clientMessageId: send.id })
    }
  });
}
