/**
 * The one error model shared by REST bodies and WebSocket error frames.
 * Codes are `<kind>:<subject>` so clients can branch on the kind alone.
 */
import { z } from "zod";

const ERROR_CODES = [
  "bad_request:body",
  "bad_request:json",
  "bad_request:query",
  "bad_request:import",
  "bad_request:workspace",
  "not_found:room",
  "not_found:message",
  "not_found:route",
  "not_found:trace",
  "not_found:persona",
  "not_found:share",
  "conflict:room_limit",
  "conflict:room_full",
  "conflict:not_latest",
  "forbidden:not_author",
  "forbidden:read_only",
  "conflict:persona_limit",
  "conflict:persona_name",
  "conflict:share_limit",
  "payload_too_large:body",
  "unauthorized:token",
  "unauthorized:session",
  "unauthorized:access",
  "forbidden:origin",
  "rate_limited:requests",
  "budget_exceeded:room",
  "budget_exceeded:workspace",
  "upstream:model",
  "internal:unexpected"
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorBody = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string()
  })
});
export type ErrorBody = z.infer<typeof ErrorBody>;
