/**
 * What the server may write to its logs about a failure: the error's kind,
 * status and code, never its message or properties. Errors carry text
 * people wrote: the AI SDK's APICallError holds the whole prompt in
 * `requestBodyValues` and the provider's reply in `responseBody`, and a
 * JSON parse error quotes its input. Logs never hold message text or
 * prompts, so errors are summarised before they are logged.
 */

export interface ErrorSummary {
  name: string;
  status?: number;
  code?: string;
  /** The same summary for what caused it, one level deep. */
  cause?: Omit<ErrorSummary, "cause">;
}

function summarise(error: unknown): Omit<ErrorSummary, "cause"> {
  if (typeof error !== "object" || error === null) return { name: typeof error };
  const e = error as { name?: unknown; statusCode?: unknown; status?: unknown; code?: unknown };
  const status = typeof e.statusCode === "number" ? e.statusCode : typeof e.status === "number" ? e.status : undefined;
  return {
    name: typeof e.name === "string" ? e.name.slice(0, 80) : "Error",
    ...(status !== undefined ? { status } : {}),
    ...(typeof e.code === "string" ? { code: e.code.slice(0, 80) } : {})
  };
}

function errorSummary(error: unknown): ErrorSummary {
  const cause = typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined;
  return { ...summarise(error), ...(cause !== undefined ? { cause: summarise(cause) } : {}) };
}

/** console.error with the summary only. */
export function logError(where: string, error: unknown) {
  console.error(where, JSON.stringify(errorSummary(error)));
}

/** For `streamText({ onError })`: the AI SDK's default logs the whole error, prompt included. */
export function logModelError({ error }: { error: unknown }) {
  console.warn("[model] request failed:", JSON.stringify(errorSummary(error)));
}
