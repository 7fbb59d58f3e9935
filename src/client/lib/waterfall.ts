/**
 * A trace laid out as a waterfall: one row per span, depth-first from the
 * root, each placed on a shared time axis, plus the figures a reader wants
 * first (queue wait, time to first token, tokens per second, total).
 */
import type { TraceSpan } from "@/shared/traces";

interface WaterfallRow {
  span: TraceSpan;
  depth: number;
  /** Offset and width as fractions of the whole trace (0..1). */
  left: number;
  width: number;
  durationMs: number | null;
}

export interface Waterfall {
  rows: WaterfallRow[];
  totalMs: number;
  queueMs: number | null;
  /** From the send reaching the server to the first token of the first model call. */
  timeToFirstTokenMs: number | null;
  /** Output tokens per second of model calls, after their first token. */
  tokensPerSecond: number | null;
}

export function layoutWaterfall(spans: readonly TraceSpan[], now = Date.now()): Waterfall {
  if (spans.length === 0)
    return { rows: [], totalMs: 0, queueMs: null, timeToFirstTokenMs: null, tokensPerSecond: null };
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | null, TraceSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : null;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  for (const list of children.values()) list.sort((a, b) => a.startedAt - b.startedAt);
  const start = Math.min(...spans.map((s) => s.startedAt));
  const end = Math.max(...spans.map((s) => s.endedAt ?? now));
  const totalMs = Math.max(1, end - start);
  const rows: WaterfallRow[] = [];
  const visit = (span: TraceSpan, depth: number) => {
    const spanEnd = span.endedAt ?? now;
    rows.push({
      span,
      depth,
      left: (span.startedAt - start) / totalMs,
      width: Math.max(0, spanEnd - span.startedAt) / totalMs,
      durationMs: span.endedAt === null ? null : span.endedAt - span.startedAt
    });
    for (const child of children.get(span.spanId) ?? []) visit(child, depth + 1);
  };
  for (const root of children.get(null) ?? []) visit(root, 0);

  const queue = spans.find((s) => s.kind === "queue");
  const models = spans.filter((s) => s.kind === "model");
  const firstToken = models.map((m) => m.firstTokenAt).filter((t): t is number => t !== null);
  let tokens = 0;
  let seconds = 0;
  for (const m of models) {
    if (m.endedAt === null || m.firstTokenAt === null || !m.outputTokens) continue;
    tokens += m.outputTokens;
    seconds += (m.endedAt - m.firstTokenAt) / 1000;
  }
  return {
    rows,
    totalMs: end - start,
    queueMs: queue?.endedAt != null ? queue.endedAt - queue.startedAt : null,
    timeToFirstTokenMs: firstToken.length ? Math.min(...firstToken) - start : null,
    tokensPerSecond: seconds > 0 ? tokens / seconds : null
  };
}
