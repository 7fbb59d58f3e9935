/**
 * zod at the REST boundary: one hook turns any schema failure into an
 * AppError whose message names each bad field, so a client can fix its
 * request without guessing.
 */
import type { Context, Env as HonoEnv } from "hono";
import type { z } from "zod";
import type { ErrorCode } from "../../shared/errors";
import { AppError } from "./errors";

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

export function rejectInvalid(code: ErrorCode) {
  return (result: { success: boolean; error?: z.ZodError }, _c: Context<HonoEnv>) => {
    if (!result.success && result.error) throw new AppError(code, 400, describeIssues(result.error));
  };
}
