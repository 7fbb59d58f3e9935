/**
 * Trace ids and spans, pure: W3C Trace Context (`traceparent`) parsing and
 * formatting, the span record a room stores, the checks that a trace forms
 * one closed tree, and the store's bounds. No storage, no clock of its own.
 *
 * A turn's trace, as a room records it:
 *
 *   request            root: the send reaching the Worker (REST) or the room (WebSocket);
 *   ├── queue          its parent is the client's span when it sent a `traceparent`
 *   └── turn           waiting for the room's previous turn to end
 *       ├── chat <model>   one per model request (each step, each retry)
 *       └── tool <name>    one per tool call
 *
 * Personas, panels and tasks add their own spans under `turn` with the same
 * trace id (the facet receives the `traceparent` of the span that called it).
 * The trace id is always the server's (continueOrStart): a client's
 * `traceparent` only names the root's parent.
 */
import { AppError } from "@/server/app-error";
import type { SpanKind, SpanStatus, TraceSpan } from "@/shared/traces";

export type { SpanKind, SpanStatus, TraceSpan };

/** Traces a room keeps; past this, the oldest are dropped whole. */
export const MAX_TRACES_PER_ROOM = 200;
/** A trace the room no longer (or never) kept. */
export function traceNotFound(traceId: string): AppError {
  return new AppError(
    "not_found:trace",
    404,
    `No trace "${traceId}" in this room (a room keeps the traces of its latest ${MAX_TRACES_PER_ROOM} turns).`
  );
}

/** Spans one trace may hold; a runaway turn stops recording, never grows the store without bound. */
export const MAX_SPANS_PER_TRACE = 256;

export interface TraceContext {
  /** 32 lowercase hex characters, not all zero. */
  traceId: string;
  /** The span that is the parent of whatever this context is handed to (16 hex). */
  spanId: string;
  /** W3C trace flags; bit 0 = sampled. We record everything and pass the flags on. */
  flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Parses a `traceparent` header value per W3C Trace Context level 1: version
 * ff is invalid, all-zero ids are invalid, version 00 has exactly four
 * fields, later versions may append fields (ignored). Anything else is null,
 * and the caller starts a new trace.
 */
export function parseTraceparent(value: unknown): TraceContext | null {
  if (typeof value !== "string" || value.length > 512) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === "ff") return null;
  if (version === "00" && rest !== undefined) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, flags };
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags}`;
}

/** Fills a buffer with random bytes (crypto.getRandomValues, or a test's own). */
type RandomBytes = (b: Uint8Array<ArrayBuffer>) => Uint8Array;

function randomHex(bytes: number, random: RandomBytes): string {
  for (;;) {
    const hex = Array.from(random(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
    if (!/^0+$/.test(hex)) return hex;
  }
}

const webRandom: RandomBytes = (b) => crypto.getRandomValues(b);

export function newTraceId(random: RandomBytes = webRandom): string {
  return randomHex(16, random);
}

export function newSpanId(random: RandomBytes = webRandom): string {
  return randomHex(8, random);
}

/**
 * A new turn's context: always a trace id of the server's own, since the room
 * keys its stored traces by it and a client could otherwise name another
 * turn's trace (its own earlier one, or one read off an answer's metadata)
 * and write into it. A client's valid context contributes only its span (the
 * root's parent) and its flags.
 */
export function continueOrStart(traceparent: unknown): { context: TraceContext; fromClient: boolean } {
  const parsed = parseTraceparent(traceparent);
  if (parsed)
    return { context: { traceId: newTraceId(), spanId: parsed.spanId, flags: parsed.flags }, fromClient: true };
  return { context: { traceId: newTraceId(), spanId: newSpanId(), flags: "01" }, fromClient: false };
}

export interface TreeCheck {
  ok: boolean;
  /** Why not, for test failure messages. */
  problems: string[];
  root: TraceSpan | null;
}

/**
 * One trace is one tree: a single span whose parent is not in the trace (the
 * root; its parent may be the client's span), every other span's parent in
 * the trace, no cycles, one trace id, and (for a finished trace) every span
 * closed, no child starting before its parent.
 */
export function checkTraceTree(spans: readonly TraceSpan[], opts: { requireClosed?: boolean } = {}): TreeCheck {
  const problems: string[] = [];
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  if (byId.size !== spans.length) problems.push("duplicate span ids");
  const traceIds = new Set(spans.map((s) => s.traceId));
  if (traceIds.size > 1) problems.push(`several trace ids: ${[...traceIds].join(", ")}`);
  const roots = spans.filter((s) => s.parentSpanId === null || !byId.has(s.parentSpanId));
  if (roots.length !== 1) problems.push(`expected one root, found ${roots.length}`);
  for (const span of spans) {
    const seen = new Set<string>();
    let at: TraceSpan | undefined = span;
    while (at?.parentSpanId && byId.has(at.parentSpanId)) {
      if (seen.has(at.spanId)) {
        problems.push(`cycle through ${span.spanId}`);
        break;
      }
      seen.add(at.spanId);
      at = byId.get(at.parentSpanId);
    }
    if (opts.requireClosed && (span.endedAt === null || span.status === "running")) {
      problems.push(`span ${span.name} (${span.spanId}) is still open`);
    }
    const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    if (parent && span.startedAt < parent.startedAt) problems.push(`${span.name} starts before its parent`);
  }
  return { ok: problems.length === 0, problems, root: roots.length === 1 ? roots[0] : null };
}

/** How many of the oldest traces to drop so that at most `cap` remain. */
export function tracesOverCap(count: number, cap = MAX_TRACES_PER_ROOM): number {
  return Math.max(0, count - cap);
}

/** Output tokens per second over the part of a model call after its first token. */
export function tokensPerSecond(span: Pick<TraceSpan, "endedAt" | "firstTokenAt" | "outputTokens">): number | null {
  if (span.endedAt === null || span.firstTokenAt === null || !span.outputTokens) return null;
  const seconds = (span.endedAt - span.firstTokenAt) / 1000;
  return seconds > 0 ? span.outputTokens / seconds : null;
}
