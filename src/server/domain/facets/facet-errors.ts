/**
 * Failures crossing facets (a persona answering, a delegated task) as
 * values: `{ code, message, retryable }` (shared/budgets.ts), never bare
 * strings. The code is the error model's (`upstream:*`, as on any failed
 * answer); the message is the sentence the room shows; `retryable` says
 * whether the room tries the facet once more. Pure.
 *
 * The provider call inside a facet already retries itself (MODEL_MAX_RETRIES);
 * the room's one retry, after a pause, is for a failure that outlasted
 * those: a provider still overloaded, or a facet that could not be reached.
 */

import { describeModelError, modelErrorCode } from "@/server/domain/turns/model-errors";
import type { StructuredError } from "@/shared/budgets";
import { isAnswerErrorCode } from "@/shared/errors";

/** The pause before the room's one retry of a facet. */
export const FACET_RETRY_BACKOFF_MS = 1_000;

const RETRYABLE_STATUS = /^upstream:http_(408|409|425|429|5\d\d)$/;

/** Codes of provider failures worth one more try: overload, server errors, lost connections, stalls. */
export function isRetryableCode(code: string): boolean {
  return (
    RETRYABLE_STATUS.test(code) ||
    code === "upstream:timeout" ||
    code === "upstream:connection_lost" ||
    code === "upstream:facet"
  );
}

/** A provider failure inside a facet. */
export function modelFailure(error: unknown, config?: { apiKey: string | null }): StructuredError {
  const code = modelErrorCode(error);
  return { code, message: describeModelError(error, config), retryable: isRetryableCode(code) };
}

/** The facet itself could not be reached or broke (its RPC threw). */
export function facetUnreachable(who: string): StructuredError {
  return { code: "upstream:facet", message: `${who} could not be reached. Retry in a moment.`, retryable: true };
}

/** A structured error from across an RPC or stream boundary, or null when it is not one. */
export function readStructuredError(value: unknown): StructuredError | null {
  if (typeof value !== "object" || value === null) return null;
  const { code, message, retryable } = value as Record<string, unknown>;
  if (!isAnswerErrorCode(code)) return null;
  if (typeof message !== "string" || message.length === 0) return null;
  return { code, message: message.slice(0, 1_000), retryable: retryable === true };
}

/**
 * Whether the room tries a facet again: once, for a retryable failure, and
 * only when nothing was produced yet (a partial answer is kept, never
 * replaced by a second one), and not after a stop or a timeout.
 */
export function shouldRetry(failure: StructuredError | null, attempt: number, producedSomething: boolean): boolean {
  return failure?.retryable === true && attempt === 1 && !producedSomething;
}

/** Waits, or less when the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
