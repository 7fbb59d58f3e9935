/**
 * How a room's turn ends when it does not end well: a turn refused before
 * any model call (over budget) still streams one answer carrying the error,
 * and a failed or stopped answer keeps why in its own metadata, so a reload
 * shows the reason and nothing the answer had produced is lost. Also the
 * error code of each failed turn, from the stream's error hook to the
 * response hook that records it.
 */
import type { ChatResponseResult } from "@cloudflare/ai-chat";
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessage } from "ai";
import type { StructuredError } from "../../../shared/budgets";
import type { AnswerErrorCode } from "../../../shared/errors";
import type { MessageAuthor } from "../../../shared/identity";
import type { MessageMetadata } from "../../../shared/protocol";

/** The error code of a failed turn, by trace id, until its response hook runs. */
export class TurnErrorCodes {
  #codes = new Map<string, AnswerErrorCode>();

  set(traceId: string, code: AnswerErrorCode) {
    this.#codes.set(traceId, code);
  }

  get(traceId: string | undefined): AnswerErrorCode | undefined {
    return traceId ? this.#codes.get(traceId) : undefined;
  }

  forget(traceId: string | undefined) {
    if (traceId) this.#codes.delete(traceId);
  }
}

/**
 * A turn refused before any model call: a stream of one answer that carries
 * the error, so every client (socket or REST) sees it the way it sees any
 * failed answer, and the reason is kept in the transcript.
 */
export function refusedTurn(
  error: StructuredError,
  metadata: { createdAt: number; traceId: string; answers: string | null }
): Response {
  return createUIMessageStreamResponse({
    stream: createUIMessageStream({
      execute: ({ writer }) => {
        writer.write({
          type: "start",
          messageMetadata: {
            createdAt: metadata.createdAt,
            traceId: metadata.traceId,
            errorCode: error.code,
            ...(metadata.answers ? { answers: metadata.answers } : {})
          } satisfies MessageMetadata
        });
        writer.write({ type: "error", errorText: error.message });
      }
    })
  });
}

/**
 * The transcript with why an answer ended early written into it: on the
 * answer itself when it was stored, or, for a provider that failed before
 * producing anything, as an empty answer carrying the error. Null when
 * nothing is to be written (a stop before any answer existed).
 */
export function markEndedEarly(
  messages: readonly UIMessage[],
  result: ChatResponseResult,
  why: { errorCode?: AnswerErrorCode; stoppedBy?: MessageAuthor; traceId?: string },
  now = Date.now()
): UIMessage[] | null {
  const { errorCode, stoppedBy, traceId } = why;
  const mark: MessageMetadata = {
    ...(result.status === "aborted"
      ? { stopped: true, ...(stoppedBy ? { stoppedBy } : {}) }
      : { error: result.error ?? "The model request failed." }),
    ...(result.status === "error" && errorCode ? { errorCode } : {}),
    ...(traceId ? { traceId } : {})
  };
  const existing = messages.find((m) => m.id === result.message.id);
  if (existing) {
    const updated: UIMessage = {
      ...existing,
      metadata: { ...((existing.metadata ?? {}) as MessageMetadata), ...mark }
    };
    return messages.map((m) => (m.id === existing.id ? updated : m));
  }
  if (result.status !== "error") return null;
  const failed: UIMessage = {
    id: result.message.id || crypto.randomUUID(),
    role: "assistant",
    parts: [],
    metadata: { createdAt: now, ...answersOf(result.message), ...mark }
  };
  return [...messages, failed];
}

/** The trace of the newest answer, which a continuation extends. */
export function lastAnswerTraceId(messages: readonly UIMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== "assistant") continue;
    const traceId = (messages[i].metadata as MessageMetadata | undefined)?.traceId;
    return typeof traceId === "string" ? traceId : null;
  }
  return null;
}

/** Which question an answer answers, from the metadata its stream started with. */
function answersOf(message: UIMessage): Pick<MessageMetadata, "answers"> {
  const answers = (message.metadata as MessageMetadata | undefined)?.answers;
  return typeof answers === "string" ? { answers } : {};
}
