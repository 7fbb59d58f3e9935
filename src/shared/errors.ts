/**
 * The one error model on every wire: REST bodies, the `error` event of a
 * REST send streamed as server-sent events (both `ErrorBody`) and room
 * socket frames (`RoomErrorFrame`). Codes are `<kind>:<subject>` so clients
 * can branch on the kind alone. The server maps its AppError to them in one
 * place (src/server/errors.ts); clients read them with `parseWireError`.
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

/** What every failure tells its client: a typed code and a message meant for people. */
export const WireError = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string().min(1)
});
export type WireError = z.infer<typeof WireError>;

export const ErrorBody = z.object({ error: WireError });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const RoomErrorFrame = WireError.extend({ type: z.literal("rooms_error") });
export type RoomErrorFrame = z.infer<typeof RoomErrorFrame>;

/** The error in a REST body, an SSE `error` event's data or a room socket frame; null for anything else. */
export function parseWireError(value: unknown): WireError | null {
  const body = ErrorBody.safeParse(value);
  if (body.success) return body.data.error;
  const frame = RoomErrorFrame.safeParse(value);
  return frame.success ? { code: frame.data.code, message: frame.data.message } : null;
}
