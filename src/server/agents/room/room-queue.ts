/**
 * Withdrawing a question from the AI's queue. While the room answers one
 * question, others wait (shared/question-queue.ts); their author may take one
 * back before its answer starts. The question stays in the transcript, marked
 * withdrawn (nothing is silently lost), and is kept out of every model
 * context from then on (domain/turns/turn-context.ts).
 *
 * Each send queued one turn in AIChatAgent's turn queue, which has no public
 * way to take a turn out. So the turn stays: a turn answers the oldest open
 * question, and the one left over when the queue runs dry would answer the
 * last question again (what a regeneration does). This job counts those
 * surplus turns, and the turn sequence ends each without an answer.
 */
import type { UIMessage } from "ai";
import { AppError } from "@/server/app-error";
import { authorId, type MessageAuthor } from "@/shared/identity";
import type { MessageMetadata } from "@/shared/protocol";
import { openQuestions, type WithdrawResult } from "@/shared/question-queue";

export interface QueueHost {
  /** The room's in-memory transcript (the newest messages: queued questions are among them). */
  messages(): readonly UIMessage[];
  /** Stores a changed message and tells everyone connected (serialised with the room's other writes). */
  upsert(message: UIMessage): Promise<void>;
  /** Whether a turn is queued or being accepted in the framework (room/branches.ts). */
  turnWaiting(): boolean;
  /** Whether a running turn answers this question (room/turn-trace.ts). */
  isAnswering(messageId: string): boolean;
  /** Drops a send's arrival, so the room's status stops counting it as queued (room/turn-trace.ts). */
  forgetArrival(messageId: string): void;
}

export class QuestionQueue {
  /** Turns queued for questions withdrawn since: each ends without an answer. */
  #surplusTurns = 0;

  constructor(private readonly host: QueueHost) {}

  /** `who` withdraws their own question, while it waits; 404, 403 or 409 otherwise. */
  async withdraw(messageId: string, who: MessageAuthor): Promise<WithdrawResult> {
    const { host } = this;
    const messages = host.messages();
    const question = messages.find((m) => m.id === messageId && m.role === "user");
    if (!question) {
      throw new AppError("not_found:message", 404, `No question "${messageId}" waits for an answer in this room.`);
    }
    const metadata = (question.metadata ?? {}) as MessageMetadata;
    if (authorId(metadata.author) !== who.id) {
      throw new AppError("forbidden:not_author", 403, "Only the person who asked a question can withdraw it.");
    }
    if (!openQuestions(messages).some((m) => m.id === messageId)) {
      const why = metadata.withdrawn ? "was withdrawn already" : "has an answer already";
      throw new AppError("conflict:not_queued", 409, `This question ${why}.`);
    }
    if (host.isAnswering(messageId)) {
      throw new AppError("conflict:not_queued", 409, "This question is being answered now; stop the answer instead.");
    }
    // A question left over from an earlier life of the room has no turn waiting for it.
    if (host.turnWaiting()) this.#surplusTurns++;
    host.forgetArrival(messageId);
    await host.upsert({ ...question, metadata: { ...metadata, noReply: true, withdrawn: true } });
    return { messageId, withdrawn: true };
  }

  /** A turn found every question answered: true (and counted) when it was queued for a withdrawn one. */
  takeSurplusTurn(): boolean {
    if (this.#surplusTurns === 0) return false;
    this.#surplusTurns--;
    return true;
  }
}
