/** Conversions between the framework's UIMessage and the wire's ChatMessage. */
import type { UIMessage } from "ai";
import type { MessageAuthor } from "../../shared/identity";
import type { ChatMessage, MessageMetadata, SendMessageBody } from "../../shared/protocol";

export function toChatMessage(message: {
  id: string;
  role: string;
  parts: unknown[];
  metadata?: unknown;
}): ChatMessage {
  return {
    id: message.id,
    role: message.role as ChatMessage["role"],
    parts: message.parts as ChatMessage["parts"],
    ...(message.metadata ? { metadata: message.metadata as MessageMetadata } : {})
  };
}

/** The user message a REST send adds to the room. `body.author` is ignored: the author is the caller. */
export function restUserMessage(body: SendMessageBody, author: MessageAuthor): UIMessage {
  return {
    id: crypto.randomUUID(),
    role: "user",
    parts: [{ type: "text", text: body.text }],
    metadata: { author, createdAt: Date.now() } satisfies MessageMetadata
  };
}

/** The answer a turn produced for one user message, if any. */
export function answerTo(messages: readonly UIMessage[], userMessageId: string): UIMessage | undefined {
  return messages.find(
    (m) => m.role === "assistant" && (m.metadata as MessageMetadata | undefined)?.answers === userMessageId
  );
}
