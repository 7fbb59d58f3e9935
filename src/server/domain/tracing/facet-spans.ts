/**
 * Spans of a child facet (a persona answering, a delegated task) in its
 * room's trace. The room hands the facet the `traceparent` of the facet's
 * agent span; the facet traces its own model calls under it and reports
 * each span's start and end to the room, which keeps the one store of the
 * turn's trace (room/turn-trace.ts). Reports are sent in order, and a facet
 * awaits them (`flush`) before its answer ends, so the room has every span
 * by the time it sees the answer done.
 *
 * Why by hand: the framework's observability events and `wrapAISDK` spans
 * go to diagnostics channels and Workers tracing, which a room cannot read
 * back; a trace per room needs the spans where the room is.
 */

import type { LanguageModel } from "ai";
import { type AnswerErrorCode, isAnswerErrorCode } from "@/shared/errors";
import { type ModelSpanEnd, tracedModel } from "./model-span";
import { formatTraceparent, newSpanId, parseTraceparent, type TraceContext } from "./trace-spans";

export interface FacetSpanReport {
  phase: "start" | "end";
  traceId: string;
  spanId: string;
  /** The facet's agent span (from the traceparent it was given). */
  parentSpanId: string;
  name: string;
  kind: "model" | "tool";
  model: string | null;
  /** When it started (phase start) or ended (phase end), ms since epoch. */
  at: number;
  status?: "ok" | "error";
  errorCode?: AnswerErrorCode | null;
  inputTokens?: number | null;
  outputTokens?: number | null;
  firstTokenAt?: number | null;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

const count = (value: unknown) =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 1e12 ? value : null;
const time = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null);

/** A report as the room accepts it, or null. Facets are our code, but RPC input is still checked at the boundary. */
export function acceptFacetSpan(value: unknown): FacetSpanReport | null {
  if (typeof value !== "object" || value === null) return null;
  const r = value as Record<string, unknown>;
  if (r.phase !== "start" && r.phase !== "end") return null;
  if (typeof r.traceId !== "string" || !HEX32.test(r.traceId)) return null;
  if (typeof r.spanId !== "string" || !HEX16.test(r.spanId)) return null;
  if (typeof r.parentSpanId !== "string" || !HEX16.test(r.parentSpanId)) return null;
  if (r.kind !== "model" && r.kind !== "tool") return null;
  if (typeof r.name !== "string" || r.name.length === 0) return null;
  const at = time(r.at);
  if (at === null) return null;
  return {
    phase: r.phase,
    traceId: r.traceId,
    spanId: r.spanId,
    parentSpanId: r.parentSpanId,
    name: r.name.slice(0, 120),
    kind: r.kind,
    model: typeof r.model === "string" ? r.model.slice(0, 120) : null,
    at,
    status: r.status === "error" ? "error" : "ok",
    errorCode: isAnswerErrorCode(r.errorCode) ? r.errorCode : null,
    inputTokens: count(r.inputTokens),
    outputTokens: count(r.outputTokens),
    firstTokenAt: time(r.firstTokenAt)
  };
}

/** The facet's side: traces its model calls under the span it was handed, reporting each to the room. */
export class FacetSpans {
  #queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly parent: TraceContext,
    private readonly send: (report: FacetSpanReport) => Promise<void>
  ) {}

  /** Null without a valid `traceparent` (nothing is traced then). */
  static from(traceparent: unknown, send: (report: FacetSpanReport) => Promise<void>): FacetSpans | null {
    const parent = parseTraceparent(traceparent);
    return parent ? new FacetSpans(parent, send) : null;
  }

  get traceId() {
    return this.parent.traceId;
  }

  traceModel(model: LanguageModel, modelId: string): LanguageModel {
    return tracedModel(model, modelId, {
      start: (name, id) => {
        const spanId = newSpanId();
        this.#report({ phase: "start", spanId, name, kind: "model", model: id, at: Date.now() });
        return { spanId, traceparent: formatTraceparent({ ...this.parent, spanId }) };
      },
      end: (spanId, end: ModelSpanEnd) =>
        this.#report({ phase: "end", spanId, name: "model", kind: "model", model: null, at: Date.now(), ...end })
    });
  }

  /** Resolves once every report so far has been delivered (or failed: tracing never fails an answer). */
  flush(): Promise<void> {
    return this.#queue;
  }

  #report(report: Omit<FacetSpanReport, "traceId" | "parentSpanId">) {
    const full: FacetSpanReport = { ...report, traceId: this.parent.traceId, parentSpanId: this.parent.spanId };
    this.#queue = this.#queue
      .then(() => this.send(full))
      .catch((error: unknown) => console.warn("[FacetSpans] could not report a span:", error));
  }
}
