/**
 * Which question a turn answers, and the conversation the model sees for it.
 *
 * Two people can send at once. The room stores both questions as they
 * arrive and answers them one at a time, so the stored order can be
 * u1, u2, a1, a2. Read naively, the turn for u1 would see u2 as the latest
 * question and answer it twice. Each answer therefore records the question
 * it answers (`metadata.answers`); a turn answers the oldest unanswered
 * question and sees the conversation threaded question → answer, up to it.
 */
import type { UIMessage } from "ai";
import { answersByQuestion, isSettled, isWithdrawn } from "@/shared/question-queue";

export interface TurnContext {
  /** The user message this turn answers, or null when there is none. */
  answering: string | null;
  /**
   * Every question has an answer already, so the turn answers the last one
   * again: a regeneration, or a turn queued for a question withdrawn since.
   */
  reanswering: boolean;
  /** Messages for the model, threaded, ending with the question. */
  messages: UIMessage[];
}

export function contextForTurn(messages: readonly UIMessage[]): TurnContext {
  // Who answers whom: explicit metadata first, else the nearest question before.
  const answersOf = answersByQuestion(messages);
  const placed = new Set([...answersOf.values()].flat());

  // A withdrawn question is not the model's to see, nor to answer again.
  const users = messages.filter((m) => m.role === "user" && !isWithdrawn(m));
  const open = users.find((u) => !answersOf.has(u.id) && !isSettled(u));
  const anchor = open ?? users.at(-1) ?? null;
  if (!anchor) return { answering: null, reanswering: false, messages: messages.filter((m) => !isWithdrawn(m)) };

  const threaded: UIMessage[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      if (isWithdrawn(message)) continue;
      if (message.id === anchor.id) {
        threaded.push(message);
        break;
      }
      // Questions after the anchor are queued behind it; skip them here.
      if (isSettled(message)) {
        threaded.push(message, ...(answersOf.get(message.id) ?? []));
        continue;
      }
      const answers = answersOf.get(message.id);
      if (!answers) continue;
      threaded.push(message, ...answers);
    } else if (!placed.has(message)) {
      threaded.push(message);
    }
  }
  return { answering: anchor.id, reanswering: !open, messages: threaded };
}
