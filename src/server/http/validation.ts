/**
 * zod at the REST boundary: one hook turns any schema failure into an
 * AppError whose message names each bad field, so a client can fix its
 * request without guessing.
 */
import type { Context, Env as HonoEnv } from "hono";
import { AppError } from "@/server/app-error";
import type { ErrorCode } from "@/shared/errors";

type IssueList = { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> };

function describeIssues(error: IssueList): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

export function rejectInvalid(code: ErrorCode) {
  return (result: { success: true } | { success: false; error: IssueList }, _c: Context<HonoEnv>) => {
    if (!result.success) throw new AppError(code, 400, describeIssues(result.error));
  };
}
