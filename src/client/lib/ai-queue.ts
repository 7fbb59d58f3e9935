/**
 * The AI's queue as the composer shows it: "Next: Bob's question, then
 * yours". The room answers one question at a time, oldest first; the others
 * wait (shared/question-queue.ts says which are open). The one answered now
 * is not "next": it is the question of the answer streaming, or, before its
 * first token, the oldest open one.
 */
import { authorId, authorName } from "@/shared/identity";
import { openQuestions } from "@/shared/question-queue";
import { messageText, plainPreview, type RoomMessage } from "./messages";

export interface QueuedQuestion {
  id: string;
  /** Who asked, as the room names them. */
  name: string;
  mine: boolean;
  /** The start of the question, to tell one's own questions apart. */
  preview: string;
}

const unfinishedAnswer = (m: RoomMessage) =>
  m.role === "assistant" && !m.metadata?.usage && !m.metadata?.error && !m.metadata?.stopped;

/** The questions waiting behind the one answered now, oldest first; none while the room is idle. */
export function queuedQuestions(messages: readonly RoomMessage[], busy: boolean, selfId: string): QueuedQuestion[] {
  if (!busy) return [];
  const open = openQuestions(messages);
  const waiting = messages.some(unfinishedAnswer) ? open : open.slice(1);
  return waiting.map((m) => ({
    id: m.id,
    name: authorName(m.metadata?.author) ?? "Someone",
    mine: authorId(m.metadata?.author) === selfId,
    preview: plainPreview(messageText(m)).slice(0, 60)
  }));
}

const whose = (q: QueuedQuestion) => (q.mine ? "yours" : `${q.name}'s`);

/** "Next: Bob's question, then yours and Carol's" (and "N more" past three). */
export function queueLine(queue: readonly QueuedQuestion[]): string {
  const [first, ...rest] = queue;
  if (!first) return "";
  const lead = first.mine ? "Next: your question" : `Next: ${first.name}'s question`;
  if (rest.length === 0) return lead;
  const named = rest.slice(0, 2).map(whose);
  const more = rest.length - named.length;
  const tail = more > 0 ? `${named.join(", ")} and ${more} more` : named.join(" and ");
  return `${lead}, then ${tail}`;
}
