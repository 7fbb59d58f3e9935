/**
 * One turn's trace, as the room records it: the request and its queue wait,
 * the turn, each model request and each tool call. Model requests are traced
 * by a language-model middleware, which also sends the W3C `traceparent` of
 * its span upstream; tools by wrapping their `execute`. Whatever is still
 * open when the turn ends (stop, error) is closed with the turn's ending.
 *
 * `wrapAISDK` (agents/observability/ai) emits the same operations as native
 * Workers spans for Workers Observability when deployed; it cannot be read
 * back per room, so this store is what the app shows.
 */

import type { LanguageModel, ToolSet } from "ai";
import type { FacetSpanReport } from "@/server/domain/tracing/facet-spans";
import { tracedModel } from "@/server/domain/tracing/model-span";
import { continueOrStart, formatTraceparent, newSpanId, type TraceContext } from "@/server/domain/tracing/trace-spans";
import type { AnswerErrorCode } from "@/shared/errors";
import type { AgentStatus } from "@/shared/introspection";
import type { TokenUsage } from "@/shared/protocol";
import type { RoomTraceStore, SpanEnd } from "./trace-store";

export type TurnOrigin = "rest" | "websocket" | "recovery";

/** A child facet at work for the running turn (the live tree shows it). */
export interface AgentWork {
  agentId: string;
  kind: "persona" | "task";
  name: string;
  activity: string;
  startedAt: number;
  traceId: string;
  /** Its agent span: the parent of the spans it reports. */
  spanId: string | null;
}

/** A child facet's run inside a turn (see RoomTracer.startAgent). */
export interface AgentRun {
  /** Hand this to the child, so its own work joins the trace. */
  traceparent: string | null;
  traceId: string | null;
  end(status: "ok" | "error" | "stopped", errorCode?: AnswerErrorCode | null): void;
}

/** What the room knows about a send when it arrives, before its turn runs. */
export interface TurnArrival {
  context: TraceContext;
  /** The client sent the context (its span is the root's parent). */
  fromClient: boolean;
  origin: TurnOrigin;
  arrivedAt: number;
}

export class TurnTrace {
  readonly traceId: string;
  readonly rootSpanId: string;
  readonly turnSpanId: string;
  readonly #flags: string;
  #ended = false;
  /** Spans open now under the turn, newest last: what the turn is doing. */
  #open = new Map<string, string>();
  /** Tool calls' spans by tool call id: a child facet a tool starts (delegate) nests under its call. */
  #toolSpans = new Map<string, string>();

  private constructor(
    private readonly store: RoomTraceStore,
    context: TraceContext,
    rootSpanId: string,
    turnSpanId: string,
    private readonly agent: string
  ) {
    this.traceId = context.traceId;
    this.#flags = context.flags;
    this.rootSpanId = rootSpanId;
    this.turnSpanId = turnSpanId;
  }

  /** A new turn: root request span (from arrival), its queue wait, and the turn span from now. */
  static begin(store: RoomTraceStore, arrival: TurnArrival, now: number, agent = "room"): TurnTrace {
    const { context } = arrival;
    const rootSpanId = newSpanId();
    const turnSpanId = newSpanId();
    const arrivedAt = Math.min(arrival.arrivedAt, now);
    store.start({
      traceId: context.traceId,
      spanId: rootSpanId,
      parentSpanId: arrival.fromClient ? context.spanId : null,
      name: arrival.origin === "rest" ? "POST messages" : "chat request",
      kind: "request",
      startedAt: arrivedAt,
      agent
    });
    store.record(
      {
        traceId: context.traceId,
        spanId: newSpanId(),
        parentSpanId: rootSpanId,
        name: "queue",
        kind: "queue",
        startedAt: arrivedAt,
        agent
      },
      { endedAt: now, status: "ok" }
    );
    store.start({
      traceId: context.traceId,
      spanId: turnSpanId,
      parentSpanId: rootSpanId,
      name: "turn",
      kind: "turn",
      startedAt: now,
      agent
    });
    return new TurnTrace(store, context, rootSpanId, turnSpanId, agent);
  }

  /**
   * A recovery continuing an answer of an earlier trace after an eviction:
   * a new turn span under that trace's root, so the answer keeps one trace.
   */
  static resume(store: RoomTraceStore, traceId: string, now: number, agent = "room"): TurnTrace | null {
    const root = store.get(traceId)?.spans.find((s) => s.kind === "request");
    if (!root) return null;
    const turnSpanId = newSpanId();
    store.start({
      traceId,
      spanId: turnSpanId,
      parentSpanId: root.spanId,
      name: "turn (recovered)",
      kind: "turn",
      startedAt: now,
      agent
    });
    return new TurnTrace(store, { traceId, spanId: root.spanId, flags: "01" }, root.spanId, turnSpanId, agent);
  }

  /** The context a callee (a model request, a child facet) continues from. */
  childContext(spanId = this.turnSpanId): TraceContext {
    return { traceId: this.traceId, spanId, flags: this.#flags };
  }

  /** The model, traced: one span per request, `traceparent` sent upstream (domain/tracing/model-span.ts). */
  traceModel(model: LanguageModel, modelId: string, name?: string): LanguageModel {
    return tracedModel(
      model,
      modelId,
      {
        start: (spanName, id) => {
          const spanId = this.#startSpan(spanName, "model", id);
          return { spanId, traceparent: formatTraceparent(this.childContext(spanId)) };
        },
        end: (spanId, end) => this.#endSpan(spanId, end)
      },
      name
    );
  }

  /** A step already over, recorded whole under the turn (auto mode's decision, room/auto-responder.ts). */
  recordStep(name: string, startedAt: number, end: Omit<SpanEnd, "endedAt">) {
    if (this.#ended) return;
    const span = { traceId: this.traceId, spanId: newSpanId(), parentSpanId: this.turnSpanId, agent: this.agent };
    this.store.record({ ...span, name, kind: "model", startedAt, model: end.model }, { ...end, endedAt: Date.now() });
  }

  /** The tools, traced: one span per call, under the turn. */
  traceTools<T extends ToolSet>(tools: T): T {
    const traced: Record<string, unknown> = {};
    for (const [name, tool] of Object.entries(tools)) {
      const execute = tool.execute;
      if (!execute) {
        traced[name] = tool;
        continue;
      }
      traced[name] = {
        ...tool,
        execute: async (input: unknown, options: unknown) => {
          const spanId = this.#startSpan(`tool ${name}`, "tool", null);
          const toolCallId = (options as { toolCallId?: unknown } | undefined)?.toolCallId;
          if (typeof toolCallId === "string") this.#toolSpans.set(toolCallId, spanId);
          try {
            const output = await (execute as (i: unknown, o: unknown) => Promise<unknown>)(input, options);
            const failed = typeof output === "object" && output !== null && "error" in output;
            this.#endSpan(spanId, { status: failed ? "error" : "ok", errorCode: failed ? "tool:failed" : null });
            return output;
          } catch (error) {
            this.#endSpan(spanId, { status: "error", errorCode: "tool:threw" });
            throw error;
          }
        }
      };
    }
    return traced as T;
  }

  /** Ends the turn and everything under it still open, with the turn's outcome. */
  finish(
    outcome: "completed" | "error" | "aborted",
    opts: { usage?: TokenUsage; model?: string; errorCode?: AnswerErrorCode | null; messageId?: string } = {}
  ) {
    if (this.#ended) return;
    this.#ended = true;
    const now = Date.now();
    const status = outcome === "completed" ? "ok" : outcome === "aborted" ? "stopped" : "error";
    this.store.end(this.traceId, this.turnSpanId, {
      endedAt: now,
      status,
      model: opts.model ?? null,
      inputTokens: opts.usage?.inputTokens ?? null,
      outputTokens: opts.usage?.outputTokens ?? null,
      errorCode: opts.errorCode ?? null
    });
    this.store.closeTrace(this.traceId, status, now, opts.errorCode ?? null, opts.messageId || null);
  }

  get ended() {
    return this.#ended;
  }

  /**
   * A span for a child facet's work under this turn (or under the tool call
   * that started it), and the context to hand the child.
   */
  startChild(name: string, agent: string, parentToolCallId?: string) {
    const parent = (parentToolCallId && this.#toolSpans.get(parentToolCallId)) || this.turnSpanId;
    const spanId = this.#startSpan(name, "agent", null, agent, parent);
    return {
      spanId,
      traceparent: formatTraceparent(this.childContext(spanId)),
      end: (status: "ok" | "error" | "stopped", errorCode: AnswerErrorCode | null) => {
        this.#open.delete(spanId);
        this.store.end(this.traceId, spanId, { endedAt: Date.now(), status, errorCode });
      }
    };
  }

  /** What the turn is doing now: its newest open model, tool or agent span, or "turn". */
  get activity(): string {
    return [...this.#open.values()].at(-1) ?? "turn";
  }

  #startSpan(
    name: string,
    kind: "model" | "tool" | "agent",
    model: string | null,
    agent = this.agent,
    parentSpanId = this.turnSpanId
  ): string {
    const spanId = newSpanId();
    this.#open.set(spanId, name);
    if (!this.#ended) {
      this.store.start({
        traceId: this.traceId,
        spanId,
        parentSpanId,
        name,
        kind,
        startedAt: Date.now(),
        model,
        agent
      });
    }
    return spanId;
  }

  #endSpan(
    spanId: string,
    end: {
      status: "ok" | "error";
      errorCode?: AnswerErrorCode | null;
      inputTokens?: number | null;
      outputTokens?: number | null;
      firstTokenAt?: number | null;
    }
  ) {
    this.#open.delete(spanId);
    this.store.end(this.traceId, spanId, { endedAt: Date.now(), ...end });
  }
}

/**
 * A room's tracing: sends arrive (with the client's context or none), turns
 * begin and end. Turns run one at a time, but sends queue, so arrivals are
 * keyed by the message they carry and turns by their request id.
 */
export class RoomTracer {
  readonly store: RoomTraceStore;
  #arrivals = new Map<string, TurnArrival>();
  #turns = new Map<string, TurnTrace>();
  /** The question each running turn answers, by request id (a question answered now cannot be withdrawn). */
  #answering = new Map<string, string>();
  #lastOutcome: "completed" | "error" | "aborted" | null = null;
  /** The newest trace an eviction interrupted, until a recovery turn picks it up. */
  #interrupted: string | null = null;

  constructor(store: RoomTraceStore) {
    this.store = store;
  }

  /** On wake: close what the previous life left open; the framework's recovery may resume it. */
  wake(now = Date.now()) {
    this.#interrupted = this.store.closeInterrupted(now);
  }

  /** A send reached the room (or the Worker, for REST): its trace starts now. */
  arrive(messageId: string, traceparent: unknown, origin: TurnOrigin, arrivedAt = Date.now()): TurnArrival {
    const { context, fromClient } = continueOrStart(traceparent);
    const arrival = { context, fromClient, origin, arrivedAt };
    this.#arrivals.set(messageId, arrival);
    // A send refused later by the framework never begins a turn: keep the
    // map bounded anyway.
    if (this.#arrivals.size > 256) this.#arrivals.delete(this.#arrivals.keys().next().value as string);
    return arrival;
  }

  forget(messageId: string) {
    this.#arrivals.delete(messageId);
  }

  /**
   * The turn for a request. A continuation (recovery after an eviction)
   * joins the trace of the answer it continues; anything else starts from
   * its arrival, or from now when the room never saw it arrive.
   */
  begin(request: {
    requestId: string;
    answering: string | null;
    continuation: boolean;
    continuingTraceId: string | null;
  }): TurnTrace {
    const now = Date.now();
    const arrived = request.answering ? this.#arrivals.get(request.answering) : undefined;
    // A turn nobody sent in this life is the framework recovering the one an
    // eviction interrupted (a continuation, or a retry of its question).
    const resuming = request.continuation || !arrived ? (request.continuingTraceId ?? this.#interrupted) : null;
    let trace: TurnTrace | null = null;
    if (resuming) {
      trace = TurnTrace.resume(this.store, resuming, now);
      if (trace) this.#interrupted = null;
    }
    if (!trace) {
      const arrival = arrived ?? {
        ...continueOrStart(null),
        origin: request.continuation ? ("recovery" as const) : ("websocket" as const),
        arrivedAt: now
      };
      if (request.answering) this.#arrivals.delete(request.answering);
      trace = TurnTrace.begin(this.store, arrival, now);
    }
    this.#turns.get(request.requestId)?.finish("aborted");
    this.#turns.set(request.requestId, trace);
    if (request.answering) this.#answering.set(request.requestId, request.answering);
    this.lastActiveAt = now;
    return trace;
  }

  /** The turn of a request ended; unknown requests (after a restart) close by trace id. */
  end(
    requestId: string,
    outcome: "completed" | "error" | "aborted",
    opts: {
      traceId?: string;
      usage?: TokenUsage;
      model?: string;
      errorCode?: AnswerErrorCode | null;
      messageId?: string;
    }
  ) {
    const trace = this.#turns.get(requestId);
    this.#turns.delete(requestId);
    this.#answering.delete(requestId);
    this.#lastOutcome = outcome;
    this.lastActiveAt = Date.now();
    if (trace) return trace.finish(outcome, opts);
    if (opts.traceId) {
      const status = outcome === "completed" ? "ok" : outcome === "aborted" ? "stopped" : "error";
      this.store.closeTrace(opts.traceId, status, Date.now(), opts.errorCode ?? null);
    }
  }

  /** Whether a running turn answers this question. */
  isAnswering(messageId: string): boolean {
    return [...this.#answering.values()].includes(messageId);
  }

  traceOf(requestId: string): string | undefined {
    return this.#turns.get(requestId)?.traceId;
  }

  /** When a turn last began or ended here (null: not since this wake). */
  lastActiveAt: number | null = null;
  /** Child facets working for the running turn, by agent id. */
  #agents = new Map<string, AgentWork>();
  /** The same runs by the id of their agent span: what a facet's report names as its parent. */
  #runs = new Map<string, AgentWork>();

  /** What a child facet (persona, task) is doing for the running turn, if anything. */
  agentActivity(agentId: string): AgentWork | null {
    return this.#agents.get(agentId) ?? null;
  }

  /** Child facets of one kind working now (tasks for the live tree). */
  runningAgents(kind: AgentWork["kind"]): AgentWork[] {
    return [...this.#agents.values()].filter((work) => work.kind === kind);
  }

  /**
   * A child facet's part of the running turn: its own span under the turn,
   * or under the tool call that started it (the `traceparent` to hand it),
   * and its live status until it ends.
   */
  startAgent(
    agentId: string,
    name: string,
    opts: { kind?: AgentWork["kind"]; parentToolCallId?: string } = {}
  ): AgentRun {
    const turn = [...this.#turns.values()].at(-1);
    const startedAt = Date.now();
    const child = turn && !turn.ended ? turn.startChild(`agent ${name}`, agentId, opts.parentToolCallId) : null;
    const work: AgentWork | null = turn
      ? {
          agentId,
          kind: opts.kind ?? "persona",
          name,
          activity: `answering (${name})`,
          startedAt,
          traceId: turn.traceId,
          spanId: child?.spanId ?? null
        }
      : null;
    if (work) this.#agents.set(agentId, work);
    if (work?.spanId) this.#runs.set(work.spanId, work);
    let done = false;
    return {
      traceparent: child?.traceparent ?? null,
      traceId: turn?.traceId ?? null,
      end: (status, errorCode = null) => {
        if (done) return;
        done = true;
        if (work && this.#agents.get(agentId) === work) this.#agents.delete(agentId);
        if (work?.spanId) this.#runs.delete(work.spanId);
        child?.end(status, errorCode);
      }
    };
  }

  /**
   * A span a child facet reports (domain/tracing/facet-spans.ts). Starts are taken
   * only under a run the room opened and still runs, so a facet cannot
   * write into other traces; an end is taken for a span already recorded
   * (it may arrive just after its run ended).
   */
  report(report: FacetSpanReport) {
    if (report.phase === "start") {
      const run = this.#runs.get(report.parentSpanId);
      if (!run || run.traceId !== report.traceId) return;
      // A background task outlives its turn; its trace is closed by then.
      if (![...this.#turns.values()].some((turn) => turn.traceId === run.traceId && !turn.ended)) return;
      this.store.start({
        traceId: report.traceId,
        spanId: report.spanId,
        parentSpanId: report.parentSpanId,
        name: report.name,
        kind: report.kind,
        startedAt: Math.max(report.at, run.startedAt),
        model: report.model,
        agent: run.agentId
      });
      run.activity = report.name;
      return;
    }
    this.store.end(report.traceId, report.spanId, {
      endedAt: report.at,
      status: report.status ?? "ok",
      inputTokens: report.inputTokens ?? null,
      outputTokens: report.outputTokens ?? null,
      firstTokenAt: report.firstTokenAt ?? null,
      errorCode: report.errorCode ?? null
    });
    const run = this.#runs.get(report.parentSpanId);
    if (run) run.activity = `answering (${run.name})`;
  }

  /** The room's status and what it does now, for introspection and its reports. */
  live(): { status: AgentStatus; activity: string | null; traceId: string | null } {
    const running = [...this.#turns.values()].at(-1);
    if (running) {
      const waiting = this.#arrivals.size;
      return {
        status: "streaming",
        activity: waiting ? `${running.activity} (${waiting} queued)` : running.activity,
        traceId: running.traceId
      };
    }
    if (this.#arrivals.size > 0) return { status: "queued", activity: `${this.#arrivals.size} queued`, traceId: null };
    return { status: this.#lastOutcome === "error" ? "failed" : "idle", activity: null, traceId: null };
  }
}
