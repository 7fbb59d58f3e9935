/**
 * The one error model on every wire: REST bodies, the `error` event of a
 * REST send streamed as server-sent events (both `ErrorBody`) and room
 * socket frames (`RoomErrorFrame`). Codes are `<kind>:<subject>` so clients
 * can branch on the kind alone. The server maps its AppError to them in one
 * place (src/server/app-error.ts); clients read them with `parseWireError`.
 * A failed answer's code (metadata, traces) is an `AnswerErrorCode`: these
 * codes plus the answer-only ones below, declared here once.
 */
import { z } from "zod";

const ERROR_CODES = [
  "bad_request:body",
  "bad_request:json",
  "bad_request:query",
  "bad_request:import",
  /** A `.zip` import the server cannot read safely (domain/transfer/zip-read.ts). */
  "bad_request:zip",
  "bad_request:workspace",
  /** A reply whose `replyTo` names no stored message of the room (shared/replies.ts). */
  "bad_request:reply_to",
  "not_found:room",
  "not_found:message",
  "not_found:route",
  "not_found:trace",
  "not_found:persona",
  "not_found:share",
  "not_found:pin",
  "not_found:context",
  "not_found:file",
  "bad_request:upload",
  "payload_too_large:file",
  "payload_too_large:quota",
  "unsupported_media_type:file",
  "unsupported_media_type:upload",
  "not_found:member",
  "not_found:invite",
  "not_found:token",
  "not_found:person",
  "conflict:room_limit",
  "conflict:room_full",
  "conflict:not_latest",
  "conflict:message_id",
  "conflict:file",
  "forbidden:not_author",
  "forbidden:read_only",
  /** Permission refusals (shared/permissions.ts): each message says who can. */
  "forbidden:not_member",
  "forbidden:not_owner",
  "forbidden:not_admin",
  "forbidden:anonymous",
  "forbidden:token_workspace",
  "conflict:last_admin",
  "conflict:owner_leaving",
  "conflict:invite_used_up",
  "conflict:token_limit",
  "conflict:invite_limit",
  "conflict:persona_limit",
  "conflict:persona_name",
  "conflict:share_limit",
  "conflict:pin_limit",
  "conflict:reaction_limit",
  /** A question withdrawn from the AI's queue once answered, being answered, or by someone else (shared/question-queue.ts). */
  "conflict:not_queued",
  /** Private asides (shared/asides.ts). */
  "not_found:aside",
  "conflict:aside_limit",
  "conflict:aside_shared",
  /** MCP servers in a room and approvals of tool calls (shared/tools.ts). */
  "bad_request:mcp_url",
  "not_found:mcp_server",
  "not_found:mcp_tool",
  "not_found:approval",
  "conflict:mcp_limit",
  "conflict:approval_decided",
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

/**
 * Codes of a failed answer, trace span or facet run, beyond the request
 * codes above (which a refused turn also carries, e.g. `budget_exceeded:*`).
 * They are never an HTTP answer: they travel in message metadata
 * (`errorCode`), a REST send's result, trace spans and the structured
 * errors facets return, and clients read them with `AnswerErrorCode`.
 */
const ANSWER_ERROR_CODES = [
  /** The provider stopped sending (our idle timeout or its own). */
  "upstream:timeout",
  "upstream:connection_lost",
  /** The provider's response could not be read. */
  "upstream:unreadable",
  /** A persona or task facet could not be reached, or broke. */
  "upstream:facet",
  /** A delegated task hit its step, token or time limit. */
  "task:limit",
  "task:error",
  /** A tool call returned a failure, or threw. */
  "tool:failed",
  "tool:threw",
  /** The room was evicted while the turn ran. */
  "interrupted:eviction",
  /** The request was aborted (a stop): only on spans, a stopped answer is marked `stopped`. */
  "aborted"
] as const;

/** A provider's HTTP failure, by status (e.g. `upstream:http_429`). */
type UpstreamHttpCode = `upstream:http_${number}`;
const UPSTREAM_HTTP_CODE = /^upstream:http_[1-5]\d\d$/;

export type AnswerErrorCode = ErrorCode | (typeof ANSWER_ERROR_CODES)[number] | UpstreamHttpCode;

/** Every code a failed answer, span or facet run may carry; nothing else parses. */
export const AnswerErrorCode: z.ZodType<AnswerErrorCode> = z.union([
  z.enum(ERROR_CODES),
  z.enum(ANSWER_ERROR_CODES),
  z.custom<UpstreamHttpCode>((value) => typeof value === "string" && UPSTREAM_HTTP_CODE.test(value))
]);

const ANSWER_CODE_SET: ReadonlySet<string> = new Set<string>([...ERROR_CODES, ...ANSWER_ERROR_CODES]);

/**
 * The schema's test, by hand: it runs on every stored span, every message
 * normalised and every span a facet reports, mostly on no code at all, where
 * the union's three failing branches each built and formatted an issue
 * (about 1 ms of a turn's CPU). Tests hold it to the schema.
 */
export function isAnswerErrorCode(value: unknown): value is AnswerErrorCode {
  return typeof value === "string" && (ANSWER_CODE_SET.has(value) || UPSTREAM_HTTP_CODE.test(value));
}

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
