/**
 * AppError is the one typed failure of the server. `toErrorBody` is its one
 * mapping to the wire: REST answers it with its status in `app.onError`, a
 * REST send streamed as server-sent events ends with it as the `error`
 * event, and room sockets send it as a `rooms_error` frame (the shared
 * schema in src/shared/errors.ts). Anything else is a bug: logged, and
 * answered with a generic error that leaks nothing.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorBody, ErrorCode } from "@/shared/errors";

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: ContentfulStatusCode,
    message: string,
    /** For 429: when the client may try again. */
    readonly retryAfterSeconds?: number
  ) {
    super(message);
    this.name = "AppError";
  }

  get headers(): Record<string, string> {
    return this.retryAfterSeconds ? { "Retry-After": String(this.retryAfterSeconds) } : {};
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }

  /** The error as an HTTP answer, where no Hono `onError` is in the path (an agent's own fetch). */
  toResponse(): Response {
    return Response.json(this.toBody(), { status: this.status, headers: this.headers });
  }
}

const UNEXPECTED: ErrorBody = { error: { code: "internal:unexpected", message: "Something went wrong on our side." } };

/** The wire body of any failure: an AppError's own; anything else generic (the caller logs it). */
export function toErrorBody(error: unknown): ErrorBody {
  return error instanceof AppError ? error.toBody() : UNEXPECTED;
}

export const roomNotFound = (id: string) =>
  new AppError("not_found:room", 404, `Room "${id}" does not exist or was deleted.`);

/**
 * Durable Object RPC loses error classes, and workerd logs every error an
 * RPC method throws as uncaught. So agents return expected failures as
 * values, and the Worker turns them back into AppErrors.
 */
export type RpcResult<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      error: { code: ErrorCode; status: ContentfulStatusCode; message: string; retryAfterSeconds?: number };
    };

export async function asResult<T>(run: () => T | Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof AppError) {
      return {
        ok: false,
        error: {
          code: error.code,
          status: error.status,
          message: error.message,
          retryAfterSeconds: error.retryAfterSeconds
        }
      };
    }
    throw error;
  }
}

export function unwrap<T>(result: RpcResult<T>): T {
  if (result.ok) return result.value;
  throw new AppError(result.error.code, result.error.status, result.error.message, result.error.retryAfterSeconds);
}

export function rateLimited(retryAfterMs: number, what: string): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError("rate_limited:requests", 429, `Too many ${what}; try again in ${seconds} s.`, seconds);
}
