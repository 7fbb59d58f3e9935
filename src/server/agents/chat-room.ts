/**
 * ChatRoom: one room, a facet of its workspace's OverseerAgent. The thin
 * centre: the turn lives here; each other job has its own module in room/.
 *
 *   OverseerAgent ("default")           registry, gate, REST entry
 *     └── ChatRoom (<roomId>)           this file: transcript, settings, turns
 *
 * AIChatAgent gives us persistence of every message part, streaming to every
 * socket in the room, cancel, resumable streams kept in SQLite and recovery
 * after eviction. What we add by hand, and why:
 * - settings (name, system prompt, model) live in the agent state, which the
 *   framework keeps in this facet's SQLite and pushes to every client;
 * - activity reports to the parent, so the room list stays current without
 *   the overseer ever waking rooms to count their messages (room/activity.ts);
 * - a REST send path, because AIChatAgent only speaks WebSocket
 *   (room/rest-bridge.ts);
 * - checks on every frame a socket sends (room/frame-guard.ts);
 * - presence and typing, which are ephemeral and never persisted
 *   (room/presence.ts);
 * - error and stop marks on answers, so a reload still shows why an answer
 *   ended early.
 */
import { AIChatAgent, type ChatResponseResult, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import {
  type AgentToolLifecycleResult,
  type AgentToolRunInfo,
  type Connection,
  type ConnectionContext,
  getAgentByName,
  type WSMessage
} from "agents";
import { wrapAISDK } from "agents/observability/ai";
import * as ai from "ai";
import {
  convertToModelMessages,
  createUIMessageStream,
  createUIMessageStreamResponse,
  type GenerateTextOnFinishCallback,
  isStepCount,
  type ToolSet,
  type UIMessage
} from "ai";
import type { StructuredError } from "../../shared/budgets";
import type { MessageAuthor } from "../../shared/identity";
import type { AgentNode, AgentTree, BudgetUse, RoomLive } from "../../shared/introspection";
import type { CreatePersonaBody, Persona, UpdatePersonaBody } from "../../shared/personas";
import {
  type ChatMessage,
  type MessageMetadata,
  type MessagePage,
  type MessagesQuery,
  type MessageVersions,
  RoomClientFrame,
  type RoomSettings,
  type RoomState,
  type SendMessageBody,
  type SendMessageResult
} from "../../shared/protocol";
import type { SearchHit } from "../../shared/search";
import { SHARE_CLOSED_CODE } from "../../shared/shares";
import type { TraceDetail, TraceList } from "../../shared/traces";
import {
  type ExportedVersion,
  ROOM_EXPORT_FORMAT,
  ROOM_EXPORT_VERSION,
  type RoomExportHeader,
  type RoomOrigin
} from "../../shared/transfer";
import { budgetDefaults, overBudget } from "../domain/budgets";
import { callerOf, isViewerRequest } from "../domain/caller";
import { toChatMessage } from "../domain/chat-messages";
import type { Branch } from "../domain/chat-request-guard";
import { coalesceDeltas } from "../domain/coalesce-deltas";
import { selectContextWindow } from "../domain/context-budget";
import { MAX_TASKS_PER_ROOM } from "../domain/delegation";
import { acceptFacetSpan } from "../domain/facet-spans";
import { utcDay } from "../domain/introspection";
import { memoryWindowBytes, WINDOW_CHECK_EVERY, windowStart } from "../domain/memory-window";
import { describeModelError, modelErrorCode } from "../domain/model-errors";
import { normalizeMessage, unreadableMessage } from "../domain/persisted-message";
import { createRoomTools, MAX_TOOL_STEPS } from "../domain/room-tools";
import { ThrottledReports } from "../domain/throttled-reports";
import { contextForTurn } from "../domain/turn-context";
import { addUsage, EMPTY_USAGE, toTokenUsage } from "../domain/usage";
import type { Env } from "../env";
import { AppError, asResult, type RpcResult } from "../errors";
import { logModelError } from "../log";
import { activeModelId, isOffline, MODEL_MAX_RETRIES, readModelConfig, resolveModel } from "../model/provider";
import { PersonaAgent, type PersonaFootprint } from "./persona-agent";
import { PERSONA_ANSWER_TIMEOUT_MS } from "./persona-turns";
import { RoomActivityLog, reportToOverseer } from "./room/activity";
import { batchBroadcasts } from "./room/broadcast-batch";
import { RoomDelegation } from "./room/delegation";
import { FrameGuard } from "./room/frame-guard";
import { parseJson } from "./room/frames";
import { pageAfter, pageAround } from "./room/history-pages";
import { LiveTurns } from "./room/live-turns";
import { OutboxSends } from "./room/outbox-sends";
import { RoomPersonas } from "./room/personas";
import { type ConnectionInfo, RoomPresence } from "./room/presence";
import { RoomReads, reportReadsToOverseer } from "./room/read-marks";
import { type RestArrival, RestTurnBridge } from "./room/rest-bridge";
import { searchRoomMessages } from "./room/search";
import { RoomTraceStore } from "./room/traces";
import {
  appendFromNdjson,
  appendMessages,
  exportJson,
  exportMarkdown,
  exportNdjson,
  insertVersions
} from "./room/transfer";
import { type AgentWork, RoomTracer } from "./room/turn-trace";
import { UsageLedger } from "./room/usage-ledger";
import { messageVersions } from "./room/versions";
import { TaskAgent, taskLimits } from "./task-agent";

export type { RestArrival };

// Deployed, model and tool calls become native Workers spans (Workers
// Observability); locally and per room, RoomTracer's store is what we show.
const { streamText } = wrapAISDK(ai);

const DEFAULT_SETTINGS: RoomSettings = { name: "Untitled room", systemPrompt: "", model: null, temperature: null };

export class ChatRoom extends AIChatAgent<Env, RoomState> {
  /**
   * Wake-time hydration window, sized from the context budget
   * (domain/memory-window.ts). Durable storage keeps every message; this
   * only bounds what sits in memory (and what the context budget can pick
   * from), so a 100,000-message room wakes, and turns, as fast as a small one.
   */
  hydrationByteBudget = memoryWindowBytes(readModelConfig(this.env).contextTokenBudget);
  /** Length of `this.messages` when the window was last checked (see #keepWindowBounded). */
  #windowCheckedAt = 0;

  initialState: RoomState = {
    settings: DEFAULT_SETTINGS,
    usage: EMPTY_USAGE,
    activeModel: "",
    offline: true,
    personas: []
  };

  #activity = new RoomActivityLog(this.sql.bind(this), () => this.sessions.session().sessionId);
  /** The empty version a regeneration's answer fills in (see writeBranch). */
  #pendingAnswer: UIMessage | null = null;
  /** Trace of every turn (room/turn-trace.ts). Spans left open by an eviction are closed on wake. */
  #tracer = new RoomTracer(new RoomTraceStore(this.ctx.storage.sql, () => this.name));
  #outbox = new OutboxSends({
    messages: () => this.messages,
    isStoredBeyondWindow: async (id) => (await this.sessions.session().getMessage(id)) !== null,
    getConnection: (id) => this.getConnection(id)
  });
  #frameGuard = new FrameGuard(
    this,
    this.env.RATE_LIMIT_SCALE,
    (messageId, traceparent) => this.#tracer.arrive(messageId, traceparent, "websocket"),
    this.#outbox
  );
  #rest = new RestTurnBridge(this, this.#tracer);
  /** Provider-reported tokens per UTC day (budgets, status). */
  #usageLedger = new UsageLedger(this.ctx.storage.sql);
  #personas = new RoomPersonas(
    this,
    () => readModelConfig(this.env),
    () => Number(this.env.PERSONA_TIMEOUT_MS) || PERSONA_ANSWER_TIMEOUT_MS,
    {
      startRun: (persona, attempt = 1) =>
        this.#tracer.startAgent(persona.id, attempt > 1 ? `${persona.name} (retry)` : persona.name, {
          kind: "persona"
        }),
      charge: (usage) => this.#usageLedger.add(usage)
    }
  );
  #presence = new RoomPresence(this);
  /** Persona and panel turns, announced so anyone in the room can stop them (room/live-turns.ts). */
  #liveTurns = new LiveTurns(this);
  /** Readers' `rooms_read` frames, turned into read marks at the overseer (room/read-marks.ts). */
  #reads = new RoomReads(
    { messages: () => this.messages, messageCount: () => this.#activity.visibleCount() },
    (reads) => reportReadsToOverseer(this.env, this.parentPath.at(-1)?.name, this.name, reads),
    (promise) => this.ctx.waitUntil(promise)
  );
  #delegation = new RoomDelegation(
    this,
    (message) => this.#personas.upsert(message),
    () => taskLimits(this.env),
    {
      startRun: (runId, name, toolCallId) =>
        this.#tracer.startAgent(runId, name, { kind: "task", parentToolCallId: toolCallId }),
      charge: (usage) => this.#usageLedger.add(usage)
    }
  );
  /** The framework's own cap on child runs, behind RoomDelegation's clearer refusal. */
  maxConcurrentAgentTools = MAX_TASKS_PER_ROOM + 1;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Constructed means woken: whatever a previous life left running ended
    // with it. Done here, before the framework's recovery can resume a turn.
    this.#tracer.wake();
    // Broadcasts reach the overseer in batches, not one RPC per frame (room/broadcast-batch.ts).
    if (!batchBroadcasts(this)) console.warn("[ChatRoom] broadcasts go to the overseer one RPC per frame");
    // AIChatAgent wrapped onMessage in its own constructor to take its
    // protocol frames. Wrap it once more, so every frame passes our checks
    // before the framework acts on it.
    this.onRequest = () => this.#refuseHttp();
    const frameworkOnMessage = this.onMessage.bind(this);
    this.onMessage = async (connection: Connection, message: WSMessage) => {
      await this.#frameGuard.check(connection, message, frameworkOnMessage);
    };
  }

  // ── Lifecycle ──

  async onStart() {
    this.#activity.createTable();
    // The provider configuration can change between deploys: re-derive the
    // model label on every wake rather than trusting the stored one.
    const config = readModelConfig(this.env);
    const state = this.state;
    const activeModel = activeModelId(config, state.settings);
    if (state.activeModel !== activeModel || state.offline !== isOffline(config)) {
      this.setState({ ...state, activeModel, offline: isOffline(config) });
    }
  }

  // ── RPC from the overseer ──

  /** Called once, right after the overseer spawns the facet. */
  async initialize(settings: RoomSettings): Promise<RoomState> {
    const config = readModelConfig(this.env);
    this.setState({
      settings,
      usage: EMPTY_USAGE,
      activeModel: activeModelId(config, settings),
      offline: isOffline(config),
      personas: []
    });
    return this.state;
  }

  describe(): RoomState {
    return this.state;
  }

  async updateSettings(patch: Partial<RoomSettings>): Promise<RoomState> {
    const settings = { ...this.state.settings, ...patch };
    const config = readModelConfig(this.env);
    this.setState({ ...this.state, settings, activeModel: activeModelId(config, settings) });
    return this.state;
  }

  /**
   * One page of history, newest page first, oldest message first within the
   * page. Walks the stored path from the cursor backwards and stops after
   * `limit + 1` messages, so the cost is the page, not the room.
   */
  async listMessages(query: { before?: string; limit: number }): Promise<MessagePage> {
    const session = this.sessions.session();
    if (query.before && !(await session.getMessage(query.before))) {
      return { messages: [], nextCursor: null };
    }
    const page: ChatMessage[] = [];
    let hasMore = false;
    for await (const message of session.history({ newestFirst: true, leafId: query.before ?? null })) {
      if (query.before && message.id === query.before) continue;
      if (page.length === query.limit) {
        hasMore = true;
        break;
      }
      page.push(toChatMessage(message));
    }
    page.reverse();
    return { messages: page, nextCursor: hasMore && page.length > 0 ? page[0].id : null };
  }

  /**
   * A send that did not come over this room's WebSocket. Everyone connected
   * sees it live, because the turn runs through the same `saveMessages`
   * path as any other.
   */
  async sendFromRest(body: SendMessageBody, author: MessageAuthor, arrival?: RestArrival): Promise<SendMessageResult> {
    return this.#rest.send(body, author, arrival);
  }

  /** `sendFromRest` as server-sent events: user-message, chunk…, done. */
  async streamFromRest(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival
  ): Promise<ReadableStream<Uint8Array>> {
    return this.#rest.stream(body, author, arrival);
  }

  // ── Traces (room/turn-trace.ts) ──

  listTraces(limit: number): TraceList {
    return { traces: this.#tracer.store.list(limit) };
  }

  getTrace(traceId: string): TraceDetail | null {
    return this.#tracer.store.get(traceId);
  }

  /** A span from a persona or task facet of this room (domain/facet-spans.ts). */
  reportSpan(report: unknown): void {
    const accepted = acceptFacetSpan(report);
    if (accepted) this.#tracer.report(accepted);
  }

  // ── Personas (roster rules in domain/personas.ts, answers in room-personas.ts) ──

  listPersonas(): Persona[] {
    return this.#personas.personas();
  }

  createPersona(body: CreatePersonaBody): Promise<RpcResult<Persona>> {
    return asResult(() => this.#personas.create(body));
  }

  updatePersona(personaId: string, patch: UpdatePersonaBody): Promise<RpcResult<Persona>> {
    return asResult(() => this.#personas.update(personaId, patch));
  }

  deletePersona(personaId: string): Promise<RpcResult<void>> {
    return asResult(() => this.#personas.delete(personaId));
  }

  /** The task facets this room holds now (tests prove finished tasks leave none). */
  taskFacets(): string[] {
    return this.dynamicAgents.list(TaskAgent).map((facet) => facet.name);
  }

  /** What a persona's facet stores (tests prove deletes wipe it). Spawns it if absent. */
  personaFootprint(personaId: string): Promise<PersonaFootprint & { registered: boolean }> {
    return this.#personas.footprint(personaId);
  }

  /** The page around a message, or just after it (deep links; see agents/room/history-pages.ts). */
  async listMessagesNear(query: MessagesQuery): Promise<RpcResult<MessagePage>> {
    const session = this.sessions.session();
    const sql = this.sql.bind(this);
    return asResult(() =>
      query.around
        ? pageAround(session, sql, query.around, query.limit)
        : pageAfter(session, sql, query.after ?? "", query.limit)
    );
  }

  // ── Export, import, fork (see agents/room/transfer.ts) ──

  /** Where this room was forked from, if it was. */
  #origin(): RoomOrigin | null {
    this.sql`CREATE TABLE IF NOT EXISTS room_origin (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)`;
    const row = this.sql<{ json: string }>`SELECT json FROM room_origin WHERE id = 1`[0];
    return row ? (JSON.parse(row.json) as RoomOrigin) : null;
  }

  #exportHeader(): RoomExportHeader {
    return {
      format: ROOM_EXPORT_FORMAT,
      version: ROOM_EXPORT_VERSION,
      exportedAt: new Date().toISOString(),
      room: {
        id: this.name,
        name: this.state.settings.name,
        settings: this.state.settings,
        personas: this.#personas.personas(),
        origin: this.#origin()
      }
    };
  }

  exportRoom(format: "json" | "markdown" | "ndjson", leafId?: string): RpcResult<ReadableStream<Uint8Array>> {
    const session = this.sessions.session();
    const sql = this.sql.bind(this);
    const header = this.#exportHeader();
    if (format === "json") return { ok: true, value: exportJson(session, sql, header) };
    if (format === "markdown") return { ok: true, value: exportMarkdown(session, sql, header) };
    return { ok: true, value: exportNdjson(session, sql, header, leafId) };
  }

  /** Whether a message is on this room's history (forks check before they create anything). */
  async hasMessage(messageId: string): Promise<boolean> {
    return (await this.sessions.session().getMessage(messageId)) !== null;
  }

  /** Imports a batch of already-validated messages after the current leaf. */
  async importMessages(messages: ChatMessage[], after?: string | null): Promise<void> {
    await appendMessages(this.sessions.session(), messages, after);
  }

  /** Imports kept earlier versions, each under its parent (before the transcript; see room/transfer.ts). */
  async importVersions(versions: ExportedVersion[]): Promise<void> {
    await insertVersions(this.sessions.session(), versions);
  }

  /** Reads another room's NDJSON export into this one (a fork), a batch at a time. */
  async importStream(stream: ReadableStream<Uint8Array>, origin: RoomOrigin | null): Promise<number> {
    if (origin) {
      this.#origin();
      this.sql`INSERT OR REPLACE INTO room_origin (id, json) VALUES (1, ${JSON.stringify(origin)})`;
      this.setState({ ...this.state, origin });
    }
    return appendFromNdjson(this.sessions.session(), stream);
  }

  /** After an import or fork: re-read the in-memory window and report to the overseer. */
  async finishImport(): Promise<{ messageCount: number }> {
    this.messages = (await this.sessions.session().getRecentHistory(this.hydrationByteBudget)).messages as UIMessage[];
    this.#activity.recount();
    this.reportActivity();
    return { messageCount: this.#activity.visibleCount() };
  }

  origin(): RoomOrigin | null {
    return this.#origin();
  }

  /** Every version of a message's position, oldest first (agents/room/versions.ts). */
  async messageVersions(messageId: string): Promise<RpcResult<MessageVersions>> {
    const session = this.sessions.session();
    return asResult(() => messageVersions(session, this.sql.bind(this), messageId));
  }

  /**
   * Writes an edit or a regeneration as a new version beside what it
   * replaces, before the turn runs (the chat-request guard planned it).
   * The framework would otherwise rewrite the message in place and delete
   * every later turn; here nothing is deleted, and the transcript the turn
   * sees is the new branch. Refused while an answer streams, so that
   * answer cannot land on the new branch.
   */
  async writeBranch(branch: Branch): Promise<{ ok: true } | { ok: false; message: string }> {
    if (this._resumableStream.hasActiveStream() || this.#turnWaiting()) {
      return { ok: false, message: "Wait for the current answer to finish (or stop it), then try again." };
    }
    const now = Date.now();
    const stored = normalizeMessage(branch.message, now);
    if (!stored) return { ok: false, message: "That version cannot be stored." };
    // The replaced message's place in the whole room (the in-memory window
    // may start partway in): it and everything after it leave the path.
    const visible = this.#activity.visibleCount();
    const replacedAt =
      visible - this.messages.length + (branch.kind === "edit" ? branch.path.length - 1 : branch.path.length);
    await this.sessions.session().appendMessage(stored, { parentId: branch.parentId });
    this.#activity.leftPath(visible - replacedAt);
    // The change feed appended it to the old branch's window; the turn sees the new branch.
    this.messages = branch.kind === "edit" ? [...branch.path.slice(0, -1), stored] : [...branch.path];
    // A regeneration's answer fills in the empty version just written (see onChatMessage).
    this.#pendingAnswer = branch.kind === "regenerate" ? stored : null;
    return { ok: true };
  }

  /**
   * A turn accepted but not streaming yet (queued behind another, or still
   * persisting its message): a branch written now would pull the transcript
   * out from under it. AIChatAgent keeps this state private (no public
   * accessor in @cloudflare/ai-chat), so read its turn queue and submit
   * counter directly; a framework upgrade that renames them fails the
   * versions worker test rather than silently allowing the race.
   */
  #turnWaiting(): boolean {
    const framework = this as unknown as {
      _turnQueue?: { queuedCount(): number };
      _submitConcurrency?: { pendingEnqueueCount: number };
    };
    if (!framework._turnQueue || !framework._submitConcurrency) {
      throw new Error("AIChatAgent internals changed: cannot tell whether a turn is queued");
    }
    return framework._turnQueue.queuedCount() > 0 || framework._submitConcurrency.pendingEnqueueCount > 0;
  }

  /** This room's part of a search across rooms (see agents/room/search.ts). */
  async searchMessages(query: string, limit: number): Promise<SearchHit[]> {
    return searchRoomMessages(this.sessions.session(), this.sql.bind(this), query, limit);
  }

  /** Full-text search over this room's own transcript (the model's tool). */
  async searchHistory(query: string, limit: number) {
    const hits = await this.sessions.session().search(query, { limit });
    return hits.map((hit) => ({ messageId: hit.id, role: hit.role, snippet: hit.content.slice(0, 300) }));
  }

  // ── The turn ──

  async onChatMessage(onFinish: GenerateTextOnFinishCallback<ToolSet>, options?: OnChatMessageOptions) {
    // A continuation (recovery, tool follow-up) extends the last answer as is.
    // Only well-formed messages reach the model, whatever older rows hold.
    const now = Date.now();
    const stored = this.messages.flatMap((m) => normalizeMessage(m, now) ?? []);
    const turn = options?.continuation ? { answering: null, messages: stored } : contextForTurn(stored);
    if (turn.answering && options?.requestId) this.#rest.turnStarted(turn.answering, options.requestId);
    const traceRequestId = options?.requestId ?? crypto.randomUUID();
    const trace = this.#tracer.begin({
      requestId: traceRequestId,
      answering: turn.answering,
      continuation: options?.continuation === true,
      continuingTraceId: options?.continuation ? lastAnswerTraceId(this.messages) : null
    });
    this.reportActivity();

    // Over budget: the turn ends with a structured error before any model call.
    const refusal = await this.#budgetRefusal();
    if (refusal) {
      this.#turnErrorCodes.set(trace.traceId, refusal.code);
      return refusedTurn(refusal, { createdAt: Date.now(), traceId: trace.traceId, answers: turn.answering });
    }

    // A regeneration's answer fills in the version written for it, on its branch.
    const version = options?.continuation ? null : this.#pendingAnswer;
    this.#pendingAnswer = null;
    const versionMetadata = version?.metadata as MessageMetadata | undefined;

    // Personas, or nobody, may answer instead of the assistant (room-personas.ts).
    const plan = this.#personas.plan(turn, options?.continuation ?? false, version);
    const requestId = options?.requestId;
    const control = {
      signal: options?.abortSignal,
      stoppedBy: () => (requestId ? this.#outbox.stopperOf(requestId) : undefined),
      ...(version && versionMetadata?.versionOf && plan.kind === "personas" && plan.personas.length === 1
        ? { into: { id: version.id, versionOf: versionMetadata.versionOf, version: versionMetadata.version ?? 2 } }
        : {})
    };
    // Persona answers stream outside the framework's turn stream: say which turn runs.
    const live = requestId && (plan.kind === "personas" || plan.kind === "panel") ? requestId : null;
    if (live) this.#liveTurns.begin(live, plan.kind === "panel" ? "panel" : "personas");
    let panel: Awaited<ReturnType<RoomPersonas["runPanel"]>> = null;
    try {
      if (plan.kind === "nobody" || plan.kind === "personas") {
        return await this.#personas.runWithoutAssistant(plan, turn, control);
      }
      // A panel: every persona answers first, then the assistant sums up.
      if (plan.kind === "panel") {
        panel = await this.#personas.runPanel(plan, turn, control);
        if (!panel) return new Response(null);
      }
    } finally {
      // A panel's synthesis streams through the framework; its turn ends in onChatResponse.
      if (live && !panel) this.#liveTurns.end(live);
      // A turn the assistant does not answer gets no onChatResponse (its response has no body): end its trace here.
      if (plan.kind !== "assistant" && !panel) {
        this.#tracer.end(traceRequestId, options?.abortSignal?.aborted ? "aborted" : "completed", {});
        this.reportActivity();
      }
    }

    const config = readModelConfig(this.env);
    const { settings } = this.state;
    const { model, modelId, offline } = resolveModel(config, settings, {
      roomName: settings.name,
      messageCount: this.messageCount(),
      systemPrompt: settings.systemPrompt || null
    });
    const window = selectContextWindow(turn.messages, {
      maxTokens: config.contextTokenBudget,
      systemPrompt: settings.systemPrompt
    });

    const result = streamText({
      model: trace.traceModel(model, modelId, panel ? `synthesis ${modelId}` : undefined),
      system: panel
        ? [settings.systemPrompt, panel.system].filter(Boolean).join("\n\n")
        : settings.systemPrompt || undefined,
      messages: panel ? [{ role: "user", content: panel.prompt }] : await convertToModelMessages(window.messages),
      tools: panel
        ? undefined
        : trace.traceTools({
            ...createRoomTools({
              now: () => new Date(),
              searchHistory: (query, limit) => this.searchHistory(query, limit)
            }),
            delegate: this.#delegation.tool()
          }),
      stopWhen: isStepCount(MAX_TOOL_STEPS),
      // One frame per ~16 ms per stream instead of one per token.
      experimental_transform: coalesceDeltas(),
      ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
      maxRetries: MODEL_MAX_RETRIES,
      abortSignal: options?.abortSignal,
      onFinish,
      // The SDK's default logs the whole error, prompt included.
      onError: logModelError
    });

    const startedAt = Date.now();
    return result.toUIMessageStreamResponse({
      ...(version ? { originalMessages: [] as UIMessage<MessageMetadata>[], generateMessageId: () => version.id } : {}),
      messageMetadata: ({ part }): MessageMetadata | undefined => {
        if (part.type === "start") {
          return {
            createdAt: startedAt,
            model: modelId,
            offline,
            traceId: trace.traceId,
            ...(turn.answering ? { answers: turn.answering } : {}),
            ...(panel ? { panel: "synthesis" as const } : {}),
            ...(versionMetadata?.versionOf
              ? { versionOf: versionMetadata.versionOf, version: versionMetadata.version }
              : {})
          };
        }
        if (part.type === "finish") return { usage: toTokenUsage(part.totalUsage) };
        return undefined;
      },
      onError: (error) => {
        this.#turnErrorCodes.set(trace.traceId, modelErrorCode(error));
        return describeModelError(error, config);
      }
    });
  }

  /** The error code of a failed turn, by trace id, until its response hook runs. */
  #turnErrorCodes = new Map<string, string>();

  protected async onChatResponse(result: ChatResponseResult) {
    this.#liveTurns.end(result.requestId);
    // An answer written into an existing row (a regeneration's version) is
    // an update, which the framework's message mirror does not add.
    if (result.message.id && !this.messages.some((m) => m.id === result.message.id)) {
      const stored = await this.sessions.session().getMessage(result.message.id);
      if (stored) this.messages = [...this.messages, stored as UIMessage];
    }
    const metadata = (result.message.metadata ?? {}) as MessageMetadata;
    const traceId = this.#tracer.traceOf(result.requestId) ?? metadata.traceId;
    const errorCode = traceId ? (this.#turnErrorCodes.get(traceId) ?? null) : null;
    this.#tracer.end(result.requestId, result.status, {
      traceId,
      usage: metadata.usage,
      model: metadata.model,
      errorCode: result.status === "error" ? (errorCode ?? "upstream:model") : null,
      messageId: result.message.id || undefined
    });
    // Provider-reported usage counts against budgets however the turn ended.
    if (metadata.usage) this.#usageLedger.add(metadata.usage);
    if (result.status === "completed" && metadata.usage) {
      this.setState({ ...this.state, usage: addUsage(this.state.usage, metadata.usage) });
    }
    if (result.status === "error" || result.status === "aborted") {
      await this.#markEndedEarly(result, traceId);
    }
    if (traceId) this.#turnErrorCodes.delete(traceId);
    this.#keepWindowBounded();
    // The turn's task results are in the transcript now: drop their facets.
    await this.#delegation.removeFinished();
    this.reportActivity();
  }

  /** A background task ended (called by name by the agent-tool runtime, see room/delegation.ts). */
  async onTaskFinished(run: AgentToolRunInfo, result: AgentToolLifecycleResult) {
    await this.#delegation.finished(run, result);
  }

  /**
   * `this.messages` only grows while the room is awake (every save appends
   * to it), and the framework's per-save work is over all of it, so a long
   * session made every turn dearer. Cut it back to the hydration window now
   * and then; storage keeps everything, and clients take a shorter
   * snapshot as the live tail (use-chat-room.ts re-anchors on it).
   */
  #keepWindowBounded() {
    if (this.messages.length < this.#windowCheckedAt) this.#windowCheckedAt = this.messages.length;
    if (this.messages.length - this.#windowCheckedAt < WINDOW_CHECK_EVERY) return;
    const start = windowStart(this.messages, this.hydrationByteBudget);
    if (start > 0) this.messages = this.messages.slice(start);
    this.#windowCheckedAt = this.messages.length;
  }

  /** Keeps why an answer ended early in the transcript itself. */
  async #markEndedEarly(result: ChatResponseResult, traceId?: string) {
    const errorCode = traceId ? this.#turnErrorCodes.get(traceId) : undefined;
    const stoppedBy = this.#outbox.stoppedBy(result.requestId);
    const mark: MessageMetadata = {
      ...(result.status === "aborted"
        ? { stopped: true, ...(stoppedBy ? { stoppedBy } : {}) }
        : { error: result.error ?? "The model request failed." }),
      ...(result.status === "error" && errorCode ? { errorCode } : {}),
      ...(traceId ? { traceId } : {})
    };
    const existing = this.messages.find((m) => m.id === result.message.id);
    if (existing) {
      const updated: UIMessage = {
        ...existing,
        metadata: { ...((existing.metadata ?? {}) as MessageMetadata), ...mark }
      };
      await this.persistMessages(this.messages.map((m) => (m.id === existing.id ? updated : m)));
    } else if (result.status === "error") {
      // The provider failed before producing anything: record an empty
      // answer carrying the error, so the failure survives a reload.
      const failed: UIMessage = {
        id: result.message.id || crypto.randomUUID(),
        role: "assistant",
        parts: [],
        metadata: { createdAt: Date.now(), ...answersOf(result.message), ...mark }
      };
      await this.persistMessages([...this.messages, failed]);
    }
  }

  /**
   * Only messages of the two roles the app knows are ever written: this is
   * the one write path (sockets, REST, marks, recovery all come through it).
   * Also where outbox sends learn they are stored.
   */
  async persistMessages(
    messages: UIMessage[],
    excludeBroadcastIds?: string[],
    options?: Parameters<AIChatAgent["persistMessages"]>[2]
  ): Promise<void> {
    const kept = messages.filter((m) => normalizeMessage(m, Date.now()) !== null);
    if (kept.length < messages.length)
      console.warn(`[ChatRoom] refused ${messages.length - kept.length} invalid message(s)`);
    await super.persistMessages(kept, excludeBroadcastIds, options);
    // Acknowledge the outbox sends this stored (room/outbox-sends.ts).
    this.#outbox.persisted(kept);
  }

  /**
   * Everything stored has the one shape of domain/persisted-message.ts:
   * known roles and part types, server-written metadata and timestamps,
   * bounded sizes and depth.
   */
  protected sanitizeMessageForPersistence(message: UIMessage): UIMessage {
    const now = Date.now();
    return normalizeMessage(message, now) ?? unreadableMessage(message, now);
  }

  broadcast(msg: string | ArrayBuffer | ArrayBufferView, without?: string[]) {
    super.broadcast(msg, without);
    this.#rest.tap(msg);
  }

  // ── What reaches a room ──

  /**
   * A room has no children. Without this, `…/sub/chat-room/<id>/sub/…`
   * would lazily create facets of this facet that the registry never sees.
   */
  async onBeforeSubAgent(): Promise<Response> {
    return notFound("A room has no sub-agents.");
  }

  /**
   * The app talks to rooms over its REST API and the room socket only; the
   * framework's own HTTP endpoints (e.g. `get-messages`, the whole
   * transcript in one response) are not part of it.
   */
  async #refuseHttp(): Promise<Response> {
    return notFound("No such endpoint on a room; use the REST API under /api.");
  }

  // ── What sockets may send ──

  /** Only the server changes room state; clients change settings over REST. */
  validateStateChange(_next: RoomState, source: Connection | "server") {
    if (source !== "server") throw new Error("Room state is read-only for clients.");
  }

  // ── Share-link viewers (routes/shares.ts opens them; room/frame-guard.ts refuses their writes) ──

  /**
   * A viewer's socket is the framework's readonly connection: it cannot
   * write state even if some later code path lets a frame through. The
   * frame guard refuses every frame that would act, since readonly alone
   * only guards setState, not chat requests.
   */
  shouldConnectionBeReadonly(_connection: Connection, ctx: ConnectionContext): boolean {
    return isViewerRequest(ctx.request);
  }

  /** Viewers get the transcript and its streams, not the room's state (settings, system prompt, personas). */
  shouldSendProtocolMessages(_connection: Connection, ctx: ConnectionContext): boolean {
    return !isViewerRequest(ctx.request);
  }

  /** A link was revoked or expired: everyone watching through it is let go at once. */
  closeViewers(shareId: string): number {
    let closed = 0;
    for (const connection of this.getConnections()) {
      if (callerOf(connection)?.viewerOf !== shareId) continue;
      connection.close(SHARE_CLOSED_CODE, "This share link is no longer valid.");
      closed++;
    }
    return closed;
  }

  // ── Presence and typing ──

  async onConnect(connection: Connection<ConnectionInfo>, ctx: ConnectionContext) {
    if (this.#presence.join(connection, ctx)) this.#liveTurns.greet(connection);
    this.reportActivity(); // the overseer's socket count
  }

  /** Sockets whose onClose ran, until the framework stops listing them. */
  #closedSockets = new Set<string>();

  async onClose(connection: Connection) {
    this.#closedSockets.add(connection.id);
    this.#presence.leave(connection);
    this.reportActivity();
  }

  async onMessage(connection: Connection<ConnectionInfo>, message: WSMessage) {
    // AIChatAgent has already taken its own protocol frames; what reaches
    // here is ours or garbage.
    if (this.#reads.receive(connection, message)) return;
    const runId = taskStopRequest(message);
    if (runId) await this.#delegation.stop(runId);
    else this.#presence.receive(connection, message);
  }

  // ── Introspection and budgets ──

  /** What the room tells its overseer about itself with each activity report. */
  #liveReport(): RoomLive {
    const { status, activity } = this.#tracer.live();
    // A socket that just closed is still listed while its onClose runs.
    let sockets = 0;
    const listed = new Set<string>();
    for (const connection of this.getConnections()) {
      listed.add(connection.id);
      if (!this.#closedSockets.has(connection.id)) sockets++;
    }
    for (const id of this.#closedSockets) if (!listed.has(id)) this.#closedSockets.delete(id);
    return {
      status,
      activity,
      sockets,
      storageBytes: this.ctx.storage.sql.databaseSize,
      day: utcDay(),
      tokensToday: this.#usageLedger.today()
    };
  }

  /** The room's live agent tree: the room, and each persona under it. */
  async describeAgents(): Promise<AgentTree> {
    const live = this.#tracer.live();
    const personas = await Promise.all(this.#personas.personas().map((p) => this.#personaNode(p.id, p.name)));
    return {
      room: {
        id: "room",
        kind: "room",
        name: this.state.settings.name,
        status: live.status,
        activity: live.activity,
        storageBytes: this.ctx.storage.sql.databaseSize,
        messages: this.messageCount(),
        tokens: { today: this.#usageLedger.today(), total: this.state.usage },
        lastActiveAt: this.#tracer.lastActiveAt,
        traceId: live.traceId,
        children: [...personas, ...this.#tracer.runningAgents("task").map(taskNode)]
      },
      budget: {
        room: {
          daily: this.state.settings.dailyTokenBudget ?? budgetDefaults(this.env).room,
          usedToday: this.#usageLedger.today()
        },
        workspace: await this.#workspaceBudget()
      }
    };
  }

  async #personaNode(id: string, name: string): Promise<AgentNode> {
    const running = this.#tracer.agentActivity(id);
    // Only a persona that has run has a facet; asking one that has not
    // would create it.
    const footprint = this.dynamicAgents.has(PersonaAgent, id) ? await this.#personas.footprint(id) : null;
    return {
      id,
      kind: "persona",
      name,
      status: running ? "streaming" : "idle",
      activity: running?.activity ?? null,
      storageBytes: null,
      messages: footprint?.answers ?? 0,
      tokens: footprint ? { today: 0, total: footprint.usage } : null,
      lastActiveAt: running?.startedAt ?? null,
      traceId: running?.traceId ?? null,
      children: []
    };
  }

  /** The turn's budget check, before any model call: the room's own day, then its workspace's. */
  async #budgetRefusal(): Promise<StructuredError | null> {
    const roomBudget = this.state.settings.dailyTokenBudget ?? budgetDefaults(this.env).room;
    const roomUsed = this.#usageLedger.today();
    const local = overBudget({ room: { budget: roomBudget, used: roomUsed }, workspace: null });
    if (local) return local;
    const workspace = await this.#workspaceBudget();
    if (!workspace) return null;
    return overBudget({
      room: { budget: 0, used: 0 },
      workspace: { budget: workspace.daily, used: workspace.usedToday }
    });
  }

  /** The workspace's budget and its use today, as the overseer knows them; null when it cannot be asked. */
  async #workspaceBudget(): Promise<BudgetUse | null> {
    const overseerName = this.parentPath.at(-1)?.name;
    if (!overseerName) return null;
    try {
      const overseer = await getAgentByName(this.env.OverseerAgent, overseerName);
      const workspace = await overseer.workspaceBudget();
      return { daily: workspace.dailyTokenBudget, usedToday: workspace.tokensToday };
    } catch (error) {
      // The overseer is unreachable: the room's own budget still holds.
      console.warn("[ChatRoom] workspace budget unknown:", error);
      return null;
    }
  }

  // ── Reporting to the overseer ──

  messageCount(): number {
    return this.#activity.messageCount();
  }

  #reports = new ThrottledReports(
    () => this.#sendActivity(),
    (promise) => this.ctx.waitUntil(promise)
  );

  /** Best effort, coalesced (room/activity.ts): a missed report is corrected by the next one. */
  protected reportActivity() {
    this.#reports.request();
  }

  async #sendActivity() {
    const overseerName = this.parentPath.at(-1)?.name;
    if (!overseerName) return console.warn("[ChatRoom] not a facet: no overseer to report activity to");
    const activity = { ...this.#activity.next(this.messages), live: this.#liveReport() };
    await reportToOverseer(this.env, overseerName, this.name, activity).catch((error: unknown) =>
      console.warn("[ChatRoom] failed to report activity:", error)
    );
  }
}

function notFound(message: string): Response {
  return Response.json(new AppError("not_found:route", 404, message).toBody(), { status: 404 });
}

/** The run id of a `rooms_task_stop` frame, or null for any other frame. */
function taskStopRequest(message: WSMessage): string | null {
  if (typeof message !== "string" || !message.includes('"rooms_task_stop"')) return null;
  const frame = RoomClientFrame.safeParse(parseJson(message));
  return frame.success && frame.data.type === "rooms_task_stop" ? frame.data.runId : null;
}

/** The trace of the newest answer, which a continuation extends. */
function lastAnswerTraceId(messages: readonly UIMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== "assistant") continue;
    const traceId = (messages[i].metadata as MessageMetadata | undefined)?.traceId;
    return typeof traceId === "string" ? traceId : null;
  }
  return null;
}

/**
 * A turn refused before any model call: a stream of one answer that carries
 * the error, so every client (socket or REST) sees it the way it sees any
 * failed answer, and the reason is kept in the transcript.
 */
function refusedTurn(error: StructuredError, metadata: { createdAt: number; traceId: string; answers: string | null }) {
  return createUIMessageStreamResponse({
    stream: createUIMessageStream({
      execute: ({ writer }) => {
        writer.write({
          type: "start",
          messageMetadata: {
            createdAt: metadata.createdAt,
            traceId: metadata.traceId,
            errorCode: error.code,
            ...(metadata.answers ? { answers: metadata.answers } : {})
          } satisfies MessageMetadata
        });
        writer.write({ type: "error", errorText: error.message });
      }
    })
  });
}

/** A task running now, as the live tree shows it (its facet is not woken to describe it). */
function taskNode(work: AgentWork): AgentNode {
  return {
    id: work.agentId,
    kind: "task",
    name: work.name,
    status: "streaming",
    activity: work.activity,
    storageBytes: null,
    messages: null,
    tokens: null,
    lastActiveAt: work.startedAt,
    traceId: work.traceId,
    children: []
  };
}

/** Which question an answer answers, from the metadata its stream started with. */
function answersOf(message: UIMessage): Pick<MessageMetadata, "answers"> {
  const answers = (message.metadata as MessageMetadata | undefined)?.answers;
  return typeof answers === "string" ? { answers } : {};
}
