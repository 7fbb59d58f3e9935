/** Conversions between the framework's UIMessage and the wire's ChatMessage. */

import type { UIMessage } from "ai";
import type { FileRef } from "@/shared/files";
import type { MessageAuthor } from "@/shared/identity";
import type { ChatMessage, MessageMetadata, SendMessageBody } from "@/shared/protocol";
import type { ReplyRef } from "@/shared/replies";
import { normalizeMessage, unreadableMessage } from "./persisted-message";

/**
 * A stored message as the wire carries it. Normalized on the way out too,
 * so a row stored before the persistence rules (an unknown role, metadata
 * nested 20,000 deep, a createdAt of 1e20) cannot fail a read.
 */
export function toChatMessage(message: unknown, now = Date.now()): ChatMessage {
  return (normalizeMessage(message, now) ?? unreadableMessage(message, now)) as ChatMessage;
}

/**
 * The user message a REST send adds to the room. `body.author` is ignored: the author is the caller;
 * `replyTo` is the room's quote of the message `body.replyTo` names (domain/messages/reply-rules.ts).
 */
export function restUserMessage(
  body: SendMessageBody,
  author: MessageAuthor,
  files: readonly FileRef[] = [],
  replyTo?: ReplyRef
): UIMessage {
  return {
    id: crypto.randomUUID(),
    role: "user",
    parts: [{ type: "text", text: body.text }, ...files],
    metadata: { author, createdAt: Date.now(), ...(replyTo ? { replyTo } : {}) } satisfies MessageMetadata
  };
}

/** The answer a turn produced for one user message, if any. */
export function answerTo(messages: readonly UIMessage[], userMessageId: string): UIMessage | undefined {
  return messages.find(
    (m) => m.role === "assistant" && (m.metadata as MessageMetadata | undefined)?.answers === userMessageId
  );
}
