/**
 * The single place errors become HTTP responses: AppError and Hono's
 * HTTPException keep their status and message; anything else is logged and
 * answered with a generic 500.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, toErrorBody } from "@/server/app-error";
import { logError } from "@/server/log";

function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) return new AppError("payload_too_large:body", 413, error.message);
    if (error.status === 400 && /json/i.test(error.message)) {
      return new AppError("bad_request:json", 400, "The request body is not valid JSON.");
    }
    if (error.status === 401) return new AppError("unauthorized:token", 401, error.message || "Unauthorized");
    return new AppError("bad_request:body", 400, error.message || "Bad request");
  }
  return null;
}

/**
 * Reads what is left of a request body we refused without reading (wrong
 * type, too large, unauthorised). Answering while the client is still
 * uploading breaks its connection for the next request (seen through the
 * dev server's proxy). Bounded, so a huge upload is cut off instead.
 */
async function drainUnreadBody(request: Request, maxBytes = 1024 * 1024) {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  const reader = request.body.getReader();
  let seen = 0;
  while (seen <= maxBytes) {
    const { done, value } = await reader.read();
    if (done) return;
    seen += value.byteLength;
  }
  await reader.cancel();
}

export async function handleError(error: unknown, c: Context) {
  await drainUnreadBody(c.req.raw).catch((drainError: unknown) =>
    console.warn("[http] could not drain body:", drainError)
  );
  const appError = toAppError(error);
  if (appError) return c.json(appError.toBody(), appError.status, appError.headers);
  logError("[http] unexpected error:", error);
  return c.json(toErrorBody(error), 500);
}
