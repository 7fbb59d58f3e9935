/**
 * Wire types of traces and introspection, shared by the Worker and the
 * browser (the waterfall and the room's info panel).
 */
import type { AnswerErrorCode } from "./errors";

export type SpanKind = "request" | "queue" | "turn" | "model" | "tool" | "agent";

/** running: not ended yet; interrupted: the room was evicted while it ran. */
export type SpanStatus = "running" | "ok" | "error" | "stopped" | "interrupted";

export interface TraceSpan {
  traceId: string;
  spanId: string;
  /** null or a span outside this trace (the client's) for the root. */
  parentSpanId: string | null;
  name: string;
  kind: SpanKind;
  startedAt: number;
  endedAt: number | null;
  status: SpanStatus;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Model spans: when the first token arrived (time to first token = this - startedAt). */
  firstTokenAt: number | null;
  errorCode: AnswerErrorCode | null;
  /** Which facet recorded it: "room", or a persona or task id once those exist. */
  agent: string;
}

export interface TraceSummary {
  traceId: string;
  name: string;
  startedAt: number;
  endedAt: number | null;
  status: SpanStatus;
  spanCount: number;
  /** The answer this trace produced, when known. */
  messageId: string | null;
}

export interface TraceList {
  traces: TraceSummary[];
}

export interface TraceDetail {
  traceId: string;
  spans: TraceSpan[];
}
