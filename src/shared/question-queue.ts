/**
 * The AI's queue: questions the room has stored but not answered yet.
 *
 * The room answers one question at a time, oldest first (server
 * domain/turns/turn-context.ts), so while it answers Alice, Bob's and
 * Carol's questions wait. The server uses this to decide whether a question
 * may still be withdrawn; the browser to show "Next: Bob's question, then
 * Carol's" above the composer. Both read the same messages, so both read
 * them with these functions. Runtime-safe for the browser bundle.
 */

/** The fields of a message this module reads (server UIMessage and client RoomMessage both fit). */
export interface QueueMessage {
  id: string;
  role: string;
  metadata?: unknown;
}

type QueueMeta = { answers?: unknown; noReply?: unknown; withdrawn?: unknown };
const meta = (message: QueueMessage) => (message.metadata ?? {}) as QueueMeta;

/** Withdrawn by its author before an answer: nobody answers it and the model never sees it. */
export const isWithdrawn = (message: QueueMessage) => meta(message).withdrawn === true;

/** A question nobody answers (a humans-only room, auto mode's "no", or withdrawn) counts as answered. */
export const isSettled = (message: QueueMessage) => meta(message).noReply === true || isWithdrawn(message);

/**
 * Who answers whom: an answer names its question (`metadata.answers`); an
 * older answer without the name answers the nearest question before it.
 */
export function answersByQuestion<M extends QueueMessage>(messages: readonly M[]): Map<string, M[]> {
  const answersOf = new Map<string, M[]>();
  let lastUserId: string | null = null;
  for (const message of messages) {
    if (message.role === "user") {
      lastUserId = message.id;
      continue;
    }
    if (message.role !== "assistant") continue;
    const named = meta(message).answers;
    const target = typeof named === "string" ? named : lastUserId;
    if (target === null) continue;
    const list = answersOf.get(target) ?? [];
    list.push(message);
    answersOf.set(target, list);
  }
  return answersOf;
}

/** Questions with no answer that are not settled, oldest first: the one answered now, then the queue. */
export function openQuestions<M extends QueueMessage>(messages: readonly M[]): M[] {
  const answersOf = answersByQuestion(messages);
  return messages.filter((m) => m.role === "user" && !answersOf.has(m.id) && !isSettled(m));
}

/** `POST /api/rooms/:id/messages/:messageId/withdraw`: the question is kept, marked withdrawn, and never answered. */
export interface WithdrawResult {
  messageId: string;
  withdrawn: true;
}
