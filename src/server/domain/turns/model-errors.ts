/**
 * Turns provider failures into sentences a person can act on. The text is
 * shown in the room and stored with the answer, so it must never contain
 * the API key or the provider's raw response body.
 */
import type { AnswerErrorCode } from "@/shared/errors";

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  statusCode?: unknown;
  cause?: unknown;
  errors?: unknown;
  lastError?: unknown;
  reason?: unknown;
}

function asErrorLike(error: unknown): ErrorLike {
  return typeof error === "object" && error !== null ? (error as ErrorLike) : { message: String(error) };
}

/** RetryError wraps the last attempt; the status lives on that one. */
function innermost(error: unknown): { error: ErrorLike; attempts: number } {
  const e = asErrorLike(error);
  if (e.name === "AI_RetryError" && e.lastError) {
    const attempts = Array.isArray(e.errors) ? e.errors.length : 1;
    return { error: asErrorLike(e.lastError), attempts };
  }
  return { error: e, attempts: 1 };
}

export function describeModelError(error: unknown, config?: { apiKey: string | null }): string {
  const { error: e, attempts } = innermost(error);
  const tries = attempts > 1 ? ` (tried ${attempts} times)` : "";
  const status = typeof e.statusCode === "number" ? e.statusCode : null;
  const name = typeof e.name === "string" ? e.name : "";
  const code = typeof (e as { code?: unknown }).code === "string" ? (e as { code: string }).code : "";
  const message = typeof e.message === "string" ? e.message : "";
  let text: string;
  // Our own transport codes first: the SDK stamps in-stream errors with 500.
  if (code === "rooms_connection_lost") {
    text = "The connection to the model provider was lost mid-answer. Retry to try again.";
  } else if (code === "rooms_idle_timeout" && status !== 504) {
    text = "The model provider stopped responding, so the answer was ended. Retry in a moment.";
  } else if (status === 401 || status === 403) {
    text = `The model provider refused our credentials (HTTP ${status}). Check OPENAI_API_KEY.`;
  } else if (status === 429) {
    text = `The model provider is rate limiting us (HTTP 429)${tries}. Wait a moment and retry.`;
  } else if (status === 404) {
    text = "The model provider does not know this model (HTTP 404). Check the room's model setting or OPENAI_MODEL.";
  } else if (status === 504 || status === 408) {
    text = `The model provider stopped responding (HTTP ${status})${tries}. Retry in a moment.`;
  } else if (status !== null && status >= 500) {
    text = `The model provider failed (HTTP ${status})${tries}. Retry in a moment.`;
  } else if (status !== null && status >= 400) {
    text = `The model provider rejected the request (HTTP ${status}).`;
  } else if (
    code === "rooms_idle_timeout" ||
    name === "TimeoutError" ||
    /timed? ?out|timeout|sent nothing/i.test(message)
  ) {
    text = "The model provider stopped responding, so the answer was ended. Retry in a moment.";
  } else if (name === "AI_JSONParseError" || name === "AI_TypeValidationError" || /json|parse/i.test(message)) {
    text = "The model provider sent a response we could not read.";
  } else if (
    code === "rooms_connection_lost" ||
    /terminated|socket|network|fetch failed|connection|ECONN|closed/i.test(message)
  ) {
    text = "The connection to the model provider was lost mid-answer. Retry to try again.";
  } else {
    text = "The model request failed. Retry in a moment.";
  }
  // Belt and braces: the key must never reach a client or a log.
  if (config?.apiKey) text = text.split(config.apiKey).join("[redacted]");
  return text;
}

/** A short, low-cardinality code for a provider failure (spans and logs carry it, never the text). */
export function modelErrorCode(error: unknown): AnswerErrorCode {
  const { error: e } = innermost(error);
  const status = typeof e.statusCode === "number" ? e.statusCode : null;
  const code = typeof (e as { code?: unknown }).code === "string" ? (e as { code: string }).code : "";
  const name = typeof e.name === "string" ? e.name : "";
  if (name === "AbortError") return "aborted";
  if (code === "rooms_connection_lost") return "upstream:connection_lost";
  if (code === "rooms_idle_timeout" || name === "TimeoutError") return "upstream:timeout";
  if (status !== null && status >= 100 && status <= 599) return `upstream:http_${status}`;
  if (name === "AI_JSONParseError" || name === "AI_TypeValidationError") return "upstream:unreadable";
  return "upstream:model";
}
