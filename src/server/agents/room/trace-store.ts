/**
 * The room's trace store: spans in the room's own SQLite, bounded by
 * MAX_TRACES_PER_ROOM (oldest traces dropped whole) and MAX_SPANS_PER_TRACE.
 * A span is written twice (start, end); nothing is written per token.
 */

import { log } from "@/server/domain/tracing/structured-log";
import {
  MAX_SPANS_PER_TRACE,
  MAX_TRACES_PER_ROOM,
  type SpanKind,
  type SpanStatus,
  type TraceSpan,
  tracesOverCap
} from "@/server/domain/tracing/trace-spans";
import { type AnswerErrorCode, isAnswerErrorCode } from "@/shared/errors";
import type { TraceDetail, TraceSummary } from "@/shared/traces";

type SpanRow = {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: string;
  started_at: number;
  ended_at: number | null;
  status: string;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  first_token_at: number | null;
  error_code: string | null;
  agent: string;
};

type TraceRow = {
  trace_id: string;
  name: string;
  started_at: number;
  ended_at: number | null;
  status: string;
  span_count: number;
  message_id: string | null;
};

/** What a span's start writes: the wire span's identity fields (src/shared/traces.ts). */
export type SpanStart = Pick<TraceSpan, "traceId" | "spanId" | "parentSpanId" | "name" | "kind" | "startedAt"> & {
  model?: string | null;
  agent?: string;
};

/** What a span's end writes. */
export type SpanEnd = Partial<
  Pick<TraceSpan, "model" | "inputTokens" | "outputTokens" | "firstTokenAt" | "errorCode">
> & {
  endedAt: number;
  status: Exclude<SpanStatus, "running">;
};

/** A stored span's error code; only declared codes are ever written, so anything else reads as none. */
const storedCode = (code: string | null): AnswerErrorCode | null => (isAnswerErrorCode(code) ? code : null);

function toSpan(row: SpanRow): TraceSpan {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    name: row.name,
    kind: row.kind as SpanKind,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    status: row.status as SpanStatus,
    model: row.model,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    firstTokenAt: row.first_token_at,
    errorCode: storedCode(row.error_code),
    agent: row.agent
  };
}

export class RoomTraceStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly roomId: () => string,
    private readonly cap = MAX_TRACES_PER_ROOM
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS rooms_traces (
      trace_id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      ended_at INTEGER,
      status TEXT NOT NULL,
      span_count INTEGER NOT NULL DEFAULT 0,
      message_id TEXT
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS rooms_traces_by_start ON rooms_traces (started_at, trace_id)");
    sql.exec(`CREATE TABLE IF NOT EXISTS rooms_spans (
      trace_id TEXT NOT NULL,
      span_id TEXT NOT NULL,
      parent_span_id TEXT,
      name TEXT NOT NULL,
      kind TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      ended_at INTEGER,
      status TEXT NOT NULL,
      model TEXT,
      input_tokens INTEGER,
      output_tokens INTEGER,
      first_token_at INTEGER,
      error_code TEXT,
      agent TEXT NOT NULL,
      PRIMARY KEY (trace_id, span_id)
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS rooms_spans_open ON rooms_spans (ended_at) WHERE ended_at IS NULL");
  }

  /**
   * Records a span's start. False when the trace is full (the span is simply
   * not recorded).
   */
  start(span: SpanStart): boolean {
    if (!this.#count(span)) return false;
    this.sql.exec(
      `INSERT OR IGNORE INTO rooms_spans (trace_id, span_id, parent_span_id, name, kind, started_at, status, model, agent)
       VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)`,
      span.traceId,
      span.spanId,
      span.parentSpanId,
      span.name,
      span.kind,
      span.startedAt,
      span.model ?? null,
      span.agent ?? "room"
    );
    return true;
  }

  /**
   * A span already over when it is first recorded (a turn's queue wait):
   * written once, as `start` then `end` would leave it. Its id must be new.
   */
  record(span: SpanStart, end: SpanEnd): boolean {
    if (!this.#count(span)) return false;
    const row = this.sql
      .exec<SpanRow>(
        `INSERT OR IGNORE INTO rooms_spans (trace_id, span_id, parent_span_id, name, kind, started_at, ended_at, status,
           model, input_tokens, output_tokens, first_token_at, error_code, agent)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        span.traceId,
        span.spanId,
        span.parentSpanId,
        span.name,
        span.kind,
        span.startedAt,
        end.endedAt,
        end.status,
        end.model ?? span.model ?? null,
        end.inputTokens ?? null,
        end.outputTokens ?? null,
        end.firstTokenAt ?? null,
        end.errorCode ?? null,
        span.agent ?? "room"
      )
      .toArray()[0];
    if (row) this.#logEnd(row);
    return true;
  }

  /**
   * Counts a span into its trace, creating the trace if new; false when the
   * trace is full. A turn starts four spans, nearly all of a trace already
   * here: that is one UPDATE (which also reopens a finished trace, for a
   * recovery continuing the answer), with no read first.
   */
  #count(span: SpanStart): boolean {
    const counted = this.sql
      .exec(
        `UPDATE rooms_traces SET span_count = span_count + 1, status = 'running', ended_at = NULL
         WHERE trace_id = ? AND span_count < ? RETURNING trace_id`,
        span.traceId,
        MAX_SPANS_PER_TRACE
      )
      .toArray().length;
    if (counted) return true;
    // A new trace, or a full one (then nothing is written).
    const created = this.sql
      .exec(
        `INSERT INTO rooms_traces (trace_id, name, started_at, status, span_count) VALUES (?, ?, ?, 'running', 1)
         ON CONFLICT (trace_id) DO NOTHING RETURNING trace_id`,
        span.traceId,
        span.name,
        span.startedAt
      )
      .toArray().length;
    if (created) this.#enforceCap();
    return created > 0;
  }

  /** Ends a span once; a span already ended keeps its first ending. */
  end(traceId: string, spanId: string, end: SpanEnd): void {
    const row = this.sql
      .exec<SpanRow>(
        `UPDATE rooms_spans SET ended_at = ?, status = ?, model = COALESCE(?, model), input_tokens = ?,
           output_tokens = ?, first_token_at = ?, error_code = ?
         WHERE trace_id = ? AND span_id = ? AND ended_at IS NULL RETURNING *`,
        end.endedAt,
        end.status,
        end.model ?? null,
        end.inputTokens ?? null,
        end.outputTokens ?? null,
        end.firstTokenAt ?? null,
        end.errorCode ?? null,
        traceId,
        spanId
      )
      .toArray()[0];
    if (row) this.#logEnd(row);
  }

  /**
   * Ends every span of a trace still open (the turn ended: stop, error, or
   * a child that never reported), and the trace itself.
   */
  closeTrace(
    traceId: string,
    status: Exclude<SpanStatus, "running">,
    at: number,
    errorCode: AnswerErrorCode | null = null,
    /** The answer the trace produced, when known: written with the ending. */
    messageId: string | null = null
  ) {
    const rows = this.sql
      .exec<SpanRow>(
        `UPDATE rooms_spans SET ended_at = MAX(?, started_at), status = ?, error_code = COALESCE(error_code, ?)
         WHERE trace_id = ? AND ended_at IS NULL RETURNING *`,
        at,
        status,
        errorCode,
        traceId
      )
      .toArray();
    for (const row of rows) this.#logEnd(row);
    this.sql.exec(
      "UPDATE rooms_traces SET ended_at = MAX(?, started_at), status = ?, message_id = COALESCE(?, message_id) WHERE trace_id = ?",
      at,
      status,
      messageId,
      traceId
    );
  }

  /**
   * On wake: whatever was running when the room was evicted ended then.
   * Returns the newest such trace, which the framework's recovery resumes.
   */
  closeInterrupted(at: number): string | null {
    const unfinished = this.sql
      .exec<{ trace_id: string }>(
        `SELECT trace_id FROM rooms_traces WHERE status = 'running'
           OR trace_id IN (SELECT DISTINCT trace_id FROM rooms_spans WHERE ended_at IS NULL)
         ORDER BY started_at DESC`
      )
      .toArray();
    for (const { trace_id } of unfinished) this.closeTrace(trace_id, "interrupted", at, "interrupted:eviction");
    return unfinished[0]?.trace_id ?? null;
  }

  list(limit = 50): TraceSummary[] {
    return this.sql
      .exec<TraceRow>("SELECT * FROM rooms_traces ORDER BY started_at DESC, trace_id LIMIT ?", limit)
      .toArray()
      .map((row) => ({
        traceId: row.trace_id,
        name: row.name,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        status: row.status as SpanStatus,
        spanCount: row.span_count,
        messageId: row.message_id
      }));
  }

  get(traceId: string): TraceDetail | null {
    const spans = this.sql
      .exec<SpanRow>("SELECT * FROM rooms_spans WHERE trace_id = ? ORDER BY started_at, rowid", traceId)
      .toArray()
      .map(toSpan);
    return spans.length ? { traceId, spans } : null;
  }

  /**
   * How many traces the table holds: counted once in this life, then kept
   * here, since this store is the table's only writer (`start` adds,
   * `#enforceCap` drops). Spares every turn a COUNT.
   */
  #traceCount: number | null = null;

  /** After a trace was added: drops the oldest past the cap. */
  #enforceCap() {
    this.#traceCount =
      this.#traceCount === null
        ? this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM rooms_traces").toArray()[0].n
        : this.#traceCount + 1;
    const drop = tracesOverCap(this.#traceCount, this.cap);
    if (drop === 0) return;
    const oldest = this.sql
      .exec<{ trace_id: string }>("SELECT trace_id FROM rooms_traces ORDER BY started_at, trace_id LIMIT ?", drop)
      .toArray();
    for (const { trace_id: traceId } of oldest) {
      this.sql.exec("DELETE FROM rooms_spans WHERE trace_id = ?", traceId);
      this.sql.exec("DELETE FROM rooms_traces WHERE trace_id = ?", traceId);
    }
    this.#traceCount -= oldest.length;
  }

  /** One line per turn (its root span) and one per span that failed: enough to follow, cheap per turn. */
  #logEnd(row: SpanRow) {
    if (row.kind !== "request" && row.status === "ok") return;
    log(row.status === "error" ? "warn" : "info", {
      event: row.kind === "request" ? "trace.end" : "span.end",
      room: this.roomId(),
      agent: row.agent,
      traceId: row.trace_id,
      spanId: row.span_id,
      parentSpanId: row.parent_span_id,
      name: row.name,
      status: row.status,
      model: row.model,
      durationMs: (row.ended_at ?? row.started_at) - row.started_at,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      errorCode: storedCode(row.error_code)
    });
  }
}
