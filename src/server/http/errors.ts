/**
 * AppError is the one typed failure of the server. REST maps it to
 * `{ error: { code, message } }` with its status in `app.onError`; the
 * WebSocket paths map it to error frames. Anything else is a bug: logged,
 * and answered with a generic 500 that leaks nothing.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorBody, ErrorCode } from "../../shared/errors";

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: ContentfulStatusCode,
    message: string,
    readonly headers: Record<string, string> = {}
  ) {
    super(message);
    this.name = "AppError";
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

export const roomNotFound = (id: string) =>
  new AppError("not_found:room", 404, `Room "${id}" does not exist or was deleted.`);

/**
 * Errors thrown across Durable Object RPC arrive as plain Errors: the class
 * is lost but the message survives. We encode AppErrors into the message so
 * the Worker can rebuild them; nothing else crosses that way.
 */
const WIRE_PREFIX = "APP_ERROR:";

export function toWireError(error: AppError): Error {
  return new Error(WIRE_PREFIX + JSON.stringify({ code: error.code, status: error.status, message: error.message }));
}

export function fromWireError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (!(error instanceof Error)) return null;
  const at = error.message.indexOf(WIRE_PREFIX);
  if (at < 0) return null;
  try {
    const parsed = JSON.parse(error.message.slice(at + WIRE_PREFIX.length)) as {
      code: ErrorCode;
      status: ContentfulStatusCode;
      message: string;
    };
    return new AppError(parsed.code, parsed.status, parsed.message);
  } catch (parseError) {
    console.warn("[errors] unreadable wire error", parseError);
    return null;
  }
}
