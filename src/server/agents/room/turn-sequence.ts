/**
 * A room's turn, in order: what the turn answers, its trace, the budget
 * check, who answers (the assistant, personas, a panel, or nobody), the
 * answer, and how it ends (usage, stop and error marks, the memory window,
 * finished tasks, the activity report). That order is the room's contract,
 * so it lives in one place; ChatRoom's `onChatMessage` and `onChatResponse`
 * hand over to `start` and `finish`, and each step is a job of its own in
 * room/.
 */
import type { ChatResponseResult, OnChatMessageOptions } from "@cloudflare/ai-chat";
import type { GenerateTextOnFinishCallback, ToolSet, UIMessage } from "ai";
import { addUsage } from "@/server/domain/budgets/token-usage";
import { normalizeMessage } from "@/server/domain/messages/persisted-message";
import type { TurnPlan } from "@/server/domain/personas/mentions";
import type { ThrottledReports } from "@/server/domain/rooms/throttled-reports";
import type { BoundedWindow } from "@/server/domain/turns/memory-window";
import { contextForTurn } from "@/server/domain/turns/turn-context";
import type { ModelConfig } from "@/server/model/provider";
import type { MessageMetadata } from "@/shared/protocol";
import { answerAsAssistant } from "./assistant-turn";
import type { AutoResponder } from "./auto-responder";
import type { RoomBranches } from "./branches";
import type { RoomBudget } from "./budget";
import type { RoomDelegation } from "./delegation";
import type { LiveTurns } from "./live-turns";
import type { toolJobs } from "./mcp-jobs";
import type { OutboxSends } from "./outbox-sends";
import type { RestTurnBridge } from "./rest-bridge";
import type { RoomAttachments } from "./room-attachments";
import type { RoomCore } from "./room-core";
import type { RoomMemory } from "./room-memory";
import type { RoomMentions } from "./room-mentions";
import type { RoomPersonas, TurnInput } from "./room-personas";
import type { QuestionQueue } from "./room-queue";
import { searchHistory } from "./room-search";
import { lastAnswerTraceId, markEndedEarly, refusedTurn, TurnErrorCodes } from "./turn-end";
import type { RoomTracer, TurnTrace } from "./turn-trace";
import type { UsageLedger } from "./usage-ledger";

/** The jobs a turn goes through, each as the turn uses it. */
export interface TurnJobs {
  rest: Pick<RestTurnBridge, "turnStarted">;
  tracer: Pick<RoomTracer, "begin" | "end" | "traceOf">;
  reports: Pick<ThrottledReports, "defer" | "request">;
  budget: Pick<RoomBudget, "refusal">;
  branches: Pick<RoomBranches, "takePendingAnswer" | "awaitsRegeneration">;
  personas: Pick<RoomPersonas, "plan" | "runWithoutAssistant" | "runPanel">;
  outbox: Pick<OutboxSends, "stopperOf" | "stoppedBy">;
  liveTurns: Pick<LiveTurns, "begin" | "end">;
  delegation: Pick<RoomDelegation, "tool" | "removeFinished">;
  memory: RoomMemory;
  attachments: Pick<RoomAttachments, "forTurn">;
  usageLedger: Pick<UsageLedger, "add">;
  window: Pick<BoundedWindow, "bound">;
  mentions: Pick<RoomMentions, "announce">;
  auto: Pick<AutoResponder, "decide">;
  queue: Pick<QuestionQueue, "takeSurplusTurn">;
  tools: Pick<ReturnType<typeof toolJobs>, "forTurn">;
  /** What the room has broadcast so far, delivered (room/broadcast-batch.ts). */
  broadcasts: { delivered(): Promise<void> };
}

export class TurnSequence {
  /** The error code of a failed turn, by trace id, until its response hook runs (room/turn-end.ts). */
  #turnErrorCodes = new TurnErrorCodes();

  constructor(
    private readonly room: RoomCore,
    /** The provider's configuration, read when a turn starts (model/provider.ts). */
    private readonly config: () => ModelConfig,
    private readonly jobs: TurnJobs
  ) {}

  /** The turn up to its answer's stream (ChatRoom.onChatMessage). */
  async start(onFinish: GenerateTextOnFinishCallback<ToolSet>, options?: OnChatMessageOptions): Promise<Response> {
    const { room, jobs } = this;
    // A continuation (recovery, tool follow-up) extends the last answer as is.
    // Only well-formed messages reach the model, whatever older rows hold.
    const now = Date.now();
    const stored = room.messages.flatMap((m) => normalizeMessage(m, now) ?? []);
    const turn = options?.continuation
      ? { answering: null, reanswering: false, messages: stored }
      : contextForTurn(stored);
    // Queued for a question withdrawn since: nothing is left for it to answer (room/room-queue.ts).
    // A regeneration also finds every question answered; it is never the surplus turn.
    if (turn.reanswering && !jobs.branches.awaitsRegeneration() && jobs.queue.takeSurplusTurn()) {
      return new Response(null);
    }
    if (turn.answering && options?.requestId) jobs.rest.turnStarted(turn.answering, options.requestId);
    const traceRequestId = options?.requestId ?? crypto.randomUUID();
    const trace = jobs.tracer.begin({
      requestId: traceRequestId,
      answering: turn.answering,
      continuation: options?.continuation === true,
      continuingTraceId: options?.continuation ? lastAnswerTraceId(room.messages) : null
    });
    // People the question mentions hear of it, whoever answers and whatever the budget (room/room-mentions.ts).
    if (!options?.continuation) jobs.mentions.announce(turn.answering);
    // The overseer hears of the turn soon, not before the model request
    // (nor, for a short turn, apart from its end): nothing in the room list
    // needs it within the interval.
    jobs.reports.defer();

    // Over budget: the turn ends with a structured error before any model call.
    // On the room's copy of the workspace's figure, unless it must ask (room/budget.ts).
    const refusal = await jobs.budget.refusal();
    if (refusal) {
      this.#turnErrorCodes.set(trace.traceId, refusal.code);
      return refusedTurn(refusal, { createdAt: Date.now(), traceId: trace.traceId, answers: turn.answering });
    }

    // A regeneration's answer fills in the version written for it, on its branch.
    const version = jobs.branches.takePendingAnswer(options?.continuation === true);
    const versionMetadata = version?.metadata as MessageMetadata | undefined;

    // Personas, or nobody, may answer instead of the assistant (room-personas.ts).
    // Auto mode: a short model call decides whether the assistant answers (room/auto-responder.ts).
    const plan = await this.#decideAuto(jobs.personas.plan(turn, options?.continuation ?? false, version), {
      turn,
      trace,
      regenerating: version !== null,
      signal: options?.abortSignal
    });
    const requestId = options?.requestId;
    const control = {
      signal: options?.abortSignal,
      stoppedBy: () => (requestId ? jobs.outbox.stopperOf(requestId) : undefined),
      ...(version && versionMetadata?.versionOf && plan.kind === "personas" && plan.personas.length === 1
        ? { into: { id: version.id, versionOf: versionMetadata.versionOf, version: versionMetadata.version ?? 2 } }
        : {})
    };
    // Persona answers stream outside the framework's turn stream: say which turn runs.
    const live = requestId && (plan.kind === "personas" || plan.kind === "panel") ? requestId : null;
    if (live) jobs.liveTurns.begin(live, plan.kind === "panel" ? "panel" : "personas");
    let panel: Awaited<ReturnType<RoomPersonas["runPanel"]>> = null;
    try {
      if (plan.kind === "nobody" || plan.kind === "personas") {
        return await jobs.personas.runWithoutAssistant(plan, turn, control);
      }
      // A panel: every persona answers first, then the assistant sums up.
      if (plan.kind === "panel") {
        panel = await jobs.personas.runPanel(plan, turn, control);
        if (!panel) return new Response(null);
      }
    } finally {
      // A panel's synthesis streams through the framework; its turn ends in onChatResponse.
      if (live && !panel) jobs.liveTurns.end(live);
      // A turn the assistant does not answer gets no onChatResponse (its response has no body): end its trace here.
      if (plan.kind !== "assistant" && !panel) {
        jobs.tracer.end(traceRequestId, options?.abortSignal?.aborted ? "aborted" : "completed", {});
        jobs.reports.request();
      }
    }

    // The assistant answers (room/assistant-turn.ts), or sums up a panel.
    return answerAsAssistant({
      config: this.config(),
      settings: room.state.settings,
      messageCount: room.messageCount(),
      turn,
      panel,
      version,
      trace,
      searchHistory: (query, limit) => searchHistory(room.sessions.session(), query, limit),
      delegate: () => jobs.delegation.tool(),
      mcpTools: () => jobs.tools.forTurn(turn),
      onFinish,
      abortSignal: options?.abortSignal,
      failed: (code) => this.#turnErrorCodes.set(trace.traceId, code),
      files: jobs.attachments.forTurn(),
      memory: jobs.memory,
      framesDelivered: () => jobs.broadcasts.delivered()
    });
  }

  /** An `auto` plan made the assistant's or nobody's; a regeneration asked for an answer. */
  async #decideAuto(
    plan: TurnPlan,
    at: { turn: TurnInput; trace: TurnTrace; regenerating: boolean; signal?: AbortSignal }
  ): Promise<Exclude<TurnPlan, { kind: "auto" }>> {
    if (plan.kind !== "auto") return plan;
    const question = this.room.messages.find((m) => m.id === at.turn.answering);
    if (at.regenerating || !question) return { kind: "assistant" };
    const decision = await this.jobs.auto.decide(at.turn.messages, question, at.trace, at.signal);
    return decision.answer ? { kind: "assistant" } : { kind: "nobody" };
  }

  /** How the turn ends, once its answer is stored (ChatRoom.onChatResponse). */
  async finish(result: ChatResponseResult): Promise<void> {
    const { room, jobs } = this;
    jobs.liveTurns.end(result.requestId);
    // An answer written into an existing row (a regeneration's version) is
    // an update, which the framework's message mirror does not add.
    if (result.message.id && !room.messages.some((m) => m.id === result.message.id)) {
      const stored = await room.sessions.session().getMessage(result.message.id);
      if (stored) room.messages = [...room.messages, stored as UIMessage];
    }
    const metadata = (result.message.metadata ?? {}) as MessageMetadata;
    const traceId = jobs.tracer.traceOf(result.requestId) ?? metadata.traceId;
    const errorCode = this.#turnErrorCodes.get(traceId) ?? null;
    jobs.tracer.end(result.requestId, result.status, {
      traceId,
      usage: metadata.usage,
      model: metadata.model,
      errorCode: result.status === "error" ? (errorCode ?? "upstream:model") : null,
      messageId: result.message.id || undefined
    });
    // Provider-reported usage counts against budgets however the turn ended.
    if (metadata.usage) jobs.usageLedger.add(metadata.usage);
    if (result.status === "completed" && metadata.usage) {
      room.setState({ ...room.state, usage: addUsage(room.state.usage, metadata.usage) });
    }
    if (result.status === "error" || result.status === "aborted") {
      // Why the answer ended early stays in the transcript itself.
      const marked = markEndedEarly(room.messages, result, {
        errorCode: this.#turnErrorCodes.get(traceId),
        stoppedBy: jobs.outbox.stoppedBy(result.requestId),
        traceId
      });
      if (marked) await room.persistMessages(marked);
    }
    this.#turnErrorCodes.forget(traceId);
    // Every save appends to `room.messages`, and the framework's per-save
    // work is over all of it: cut it back to the hydration window now and
    // then, so a long session does not make every turn dearer. Clients take
    // a shorter snapshot as the live tail (use-chat-room.ts re-anchors on it).
    const bounded = jobs.window.bound(room.messages);
    if (bounded !== room.messages) room.messages = bounded;
    // The turn's task results are in the transcript now: drop their facets.
    await jobs.delegation.removeFinished();
    jobs.reports.request();
  }
}
