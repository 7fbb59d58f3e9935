/**
 * Whose question the answer running now answers, so Escape stops only an
 * answer you asked for (anyone may still press Stop). The answer streaming
 * is the last one not finished (no usage, error or stop yet); it names its
 * question (`answers`) or follows it. No answer begun yet: the question
 * waiting for one is the last message.
 */
import { authorId } from "@/shared/identity";
import type { RoomMessage } from "./messages";

const unfinished = (m: RoomMessage) =>
  m.role === "assistant" && !m.metadata?.usage && !m.metadata?.error && !m.metadata?.stopped;

export function answeringQuestionOf(messages: readonly RoomMessage[], selfId: string): boolean {
  let answer = -1;
  for (let i = messages.length - 1; i >= 0 && answer < 0; i--) if (unfinished(messages[i])) answer = i;
  let question: RoomMessage | undefined;
  if (answer < 0) {
    question = messages.at(-1)?.role === "user" ? messages.at(-1) : undefined;
  } else {
    const named = messages[answer].metadata?.answers;
    question = named ? messages.find((m) => m.id === named) : undefined;
    for (let i = answer - 1; !question && i >= 0; i--) if (messages[i].role === "user") question = messages[i];
  }
  return !!question && authorId(question.metadata?.author) === selfId;
}
