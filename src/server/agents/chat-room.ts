/**
 * ChatRoom: one room, a facet of its workspace's OverseerAgent. The thin
 * centre: it wires the framework's hooks to the room's jobs and keeps the
 * turn's sequence in one place (trace, budget, who answers, the answer, how
 * it ends), because that order is the room's contract; each job has its own
 * module in room/.
 *
 *   OverseerAgent ("default")           registry, gate, REST entry
 *     └── ChatRoom (<roomId>)           this file: hooks, RPC surface, the turn
 *           ├── PersonaAgent (<id>)     a persona's answers and notes
 *           └── TaskAgent (<runId>)     a delegated task
 *
 * AIChatAgent gives us persistence of every message part, streaming to every
 * socket in the room, cancel, resumable streams kept in SQLite and recovery
 * after eviction. What we add by hand, and where:
 * - settings (name, system prompt, model) in the agent state, which the
 *   framework keeps in this facet's SQLite and pushes to every client;
 * - activity reports to the parent, so the room list stays current without
 *   the overseer ever waking rooms to count their messages (room/activity.ts),
 *   carrying a live report of the room (room/room-introspection.ts);
 * - a REST send path, because AIChatAgent only speaks WebSocket
 *   (room/rest-bridge.ts);
 * - checks on every frame a socket sends (room/frame-guard.ts), and edits
 *   and regenerations kept as versions, never rewritten (room/branches.ts);
 * - presence and typing, which are ephemeral and never persisted
 *   (room/presence.ts); read marks (room/room-reads.ts);
 * - the assistant's model call: provider, context window, tools, answer
 *   metadata (room/assistant-turn.ts);
 * - personas and panels (room/room-personas.ts), delegated tasks
 *   (room/delegation.ts), traces (room/turn-trace.ts), daily token budgets
 *   (room/budget.ts, room/usage-ledger.ts);
 * - error and stop marks on answers, so a reload still shows why an answer
 *   ended early (room/turn-end.ts);
 * - history pages, export, import and fork (room/history-pages.ts,
 *   room/room-transfer.ts, room/origin.ts).
 */
import { AIChatAgent, type ChatResponseResult, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import type { AgentToolLifecycleResult, AgentToolRunInfo, Connection, ConnectionContext, WSMessage } from "agents";
import type { GenerateTextOnFinishCallback, ToolSet, UIMessage } from "ai";
import { RoomActivityLog, reportToOverseer } from "@/server/agents/room/activity";
import { answerAsAssistant } from "@/server/agents/room/assistant-turn";
import { RoomBranches } from "@/server/agents/room/branches";
import { batchBroadcasts } from "@/server/agents/room/broadcast-batch";
import { RoomBudget } from "@/server/agents/room/budget";
import { RoomDelegation } from "@/server/agents/room/delegation";
import { FrameGuard } from "@/server/agents/room/frame-guard";
import { taskStopRequest } from "@/server/agents/room/frames";
import { pageAfter, pageAround, pageBefore } from "@/server/agents/room/history-pages";
import { LiveTurns } from "@/server/agents/room/live-turns";
import { exportHeader, RoomOriginRecord } from "@/server/agents/room/origin";
import { OutboxSends } from "@/server/agents/room/outbox-sends";
import { OverseerLink } from "@/server/agents/room/overseer-link";
import { type ConnectionInfo, RoomPresence } from "@/server/agents/room/presence";
import { RestTurnBridge } from "@/server/agents/room/rest-bridge";
import { RoomFiles } from "@/server/agents/room/room-files";
import { RoomIntrospection } from "@/server/agents/room/room-introspection";
import { RoomMemory } from "@/server/agents/room/room-memory";
import { RoomPersonas } from "@/server/agents/room/room-personas";
import { RoomReads, reportReadsToOverseer } from "@/server/agents/room/room-reads";
import { searchRoomMessages } from "@/server/agents/room/room-search";
import {
  appendFromNdjson,
  appendMessages,
  exportJson,
  exportMarkdown,
  exportNdjson,
  insertVersions
} from "@/server/agents/room/room-transfer";
import { RoomTraceStore } from "@/server/agents/room/trace-store";
import { lastAnswerTraceId, markEndedEarly, refusedTurn, TurnErrorCodes } from "@/server/agents/room/turn-end";
import { RoomTracer } from "@/server/agents/room/turn-trace";
import { UsageLedger } from "@/server/agents/room/usage-ledger";
import { messageVersions } from "@/server/agents/room/versions";
import { AppError, asResult, type RpcResult } from "@/server/app-error";
import type {
  ChatRoomApi,
  MemoryCall,
  MemoryCallResults,
  RestArrival,
  RoomParentApi
} from "@/server/contracts/room-api";
import { type Caller, callerOf, isViewerRequest } from "@/server/domain/access/caller";
import { addUsage, EMPTY_USAGE } from "@/server/domain/budgets/token-usage";
import { MAX_TASKS_PER_ROOM } from "@/server/domain/facets/delegation-limits";
import { fileKey } from "@/server/domain/files/file-limits";
import { acceptsImages } from "@/server/domain/files/image-input";
import type { PassageBatch } from "@/server/domain/files/text-passages";
import type { Branch } from "@/server/domain/messages/chat-request-guard";
import { isKeptMessage, normalizeMessage, unreadableMessage } from "@/server/domain/messages/persisted-message";
import { ThrottledReports } from "@/server/domain/rooms/throttled-reports";
import { acceptFacetSpan } from "@/server/domain/tracing/facet-spans";
import { lazyKeepAlive } from "@/server/domain/turns/lazy-keep-alive";
import { BoundedWindow, memoryWindowBytes } from "@/server/domain/turns/memory-window";
import { contextForTurn } from "@/server/domain/turns/turn-context";
import type { Env } from "@/server/env";
import { activeModelId, isOffline, readModelConfig } from "@/server/model/provider";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import {
  type FilePage,
  type FileRef,
  type FilesQuery,
  fileIdFromUrl,
  type NewFile,
  type RoomFile
} from "@/shared/files";
import type { MessageAuthor } from "@/shared/identity";
import type { AgentTree } from "@/shared/introspection";
import type { CreatePersonaBody, Persona, UpdatePersonaBody } from "@/shared/personas";
import type {
  ChatMessage,
  MessageMetadata,
  MessagePage,
  MessagesQuery,
  MessageVersions,
  RoomSettings,
  RoomState,
  SendMessageBody,
  SendMessageResult
} from "@/shared/protocol";
import type { SearchHit } from "@/shared/search";
import { SHARE_CLOSED_CODE } from "@/shared/shares";
import type { TraceDetail, TraceList } from "@/shared/traces";
import type { ExportedMemory, ExportedVersion, RoomOrigin } from "@/shared/transfer";
import type { PersonaFootprint } from "./persona-agent";
import { PERSONA_ANSWER_TIMEOUT_MS } from "./persona-turns";
import { TaskAgent, taskLimits } from "./task-agent";

const DEFAULT_SETTINGS: RoomSettings = { name: "Untitled room", systemPrompt: "", model: null, temperature: null };

export class ChatRoom extends AIChatAgent<Env, RoomState> implements ChatRoomApi, RoomParentApi {
  /**
   * Wake-time hydration window, sized from the context budget
   * (domain/turns/memory-window.ts). Durable storage keeps every message; this
   * only bounds what sits in memory (and what the context budget can pick
   * from), so a 100,000-message room wakes, and turns, as fast as a small one.
   */
  hydrationByteBudget = memoryWindowBytes(readModelConfig(this.env).contextTokenBudget);
  /** Keeps `this.messages` to that window while the room is awake (see onChatResponse). */
  #window = new BoundedWindow(this.hydrationByteBudget);

  initialState: RoomState = {
    settings: DEFAULT_SETTINGS,
    usage: EMPTY_USAGE,
    activeModel: "",
    offline: true,
    personas: []
  };

  #activity = new RoomActivityLog(this.sql.bind(this), () => this.sessions.session().sessionId);
  /** Edits and regenerations, written as new versions beside what they replace (room/branches.ts). */
  #branches = new RoomBranches(this, this.#activity, () => this._resumableStream.hasActiveStream());
  /** Where a fork came from (room/origin.ts). */
  #origin = new RoomOriginRecord(this.sql.bind(this));
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
      charge: (usage) => this.#usageLedger.add(usage),
      // #memory is declared below: reach it when a turn runs, not now.
      memory: {
        assemble: (request) => this.#memory.assemble(request),
        saw: (traceId, speaker, context) => this.#memory.saw(traceId, speaker, context)
      }
    }
  );
  #presence = new RoomPresence(this);
  /** Persona and panel turns, announced so anyone in the room can stop them (room/live-turns.ts). */
  #liveTurns = new LiveTurns(this);
  /** The room's one stub to its overseer, for every call the room makes to it (room/overseer-link.ts). */
  #overseer = new OverseerLink(this.env, () => this.parentPath.at(-1)?.name);
  /** Readers' `rooms_read` frames, turned into read marks at the overseer (room/room-reads.ts). */
  #reads = new RoomReads(
    { messages: () => this.messages, messageCount: () => this.#activity.visibleCount() },
    (reads) => reportReadsToOverseer(this.#overseer, this.name, reads),
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
  /** Daily token budgets, the room's and its workspace's (room/budget.ts). */
  #budget = new RoomBudget({
    env: this.env,
    dailyTokenBudget: () => this.state.settings.dailyTokenBudget,
    usedToday: () => this.#usageLedger.today(),
    roomId: () => this.name,
    overseer: this.#overseer
  });
  #introspection = new RoomIntrospection(
    {
      connections: () => this.getConnections(),
      storageBytes: () => this.ctx.storage.sql.databaseSize,
      roomId: () => this.name,
      roomName: () => this.state.settings.name,
      messageCount: () => this.messageCount(),
      totalUsage: () => this.state.usage,
      usedToday: () => this.#usageLedger.today()
    },
    this.#tracer,
    this.#personas,
    this.#budget
  );
  /** Pins, summaries and what each answer saw (room/room-memory.ts). */
  #memory = new RoomMemory({
    sql: this.ctx.storage.sql,
    session: () => this.sessions.session(),
    config: () => readModelConfig(this.env),
    settings: () => this.state.settings,
    messages: () => this.messages,
    historyStartsAtRoot: () => this.#activity.visibleCount() <= this.messages.length,
    charge: (usage) => this.#usageLedger.add(usage),
    keepAlive: () => this.keepAlive(),
    changed: () => this.setState({ ...this.state, memory: { revision: (this.state.memory?.revision ?? 0) + 1 } })
  });
  /** The room's files: records and their index (room/room-files.ts); the bytes are in R2. */
  #files = new RoomFiles({ sql: this.ctx.storage.sql, broadcast: (message) => this.broadcast(message) });
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

  /**
   * The framework's keep-alive, taken only by work that outlives a few
   * seconds (domain/turns/lazy-keep-alive.ts): in a facet each one is a pair of
   * RPCs to the overseer and alarm writes there, and a turn takes three.
   */
  async keepAlive(): Promise<() => void> {
    return lazyKeepAlive(() => super.keepAlive());
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

  /** The overseer's notice that this room's copy of the workspace budget may be wrong (room/budget.ts). */
  voidWorkspaceBudget(epoch: number): void {
    this.#budget.void(epoch);
  }

  async updateSettings(patch: Partial<RoomSettings>): Promise<RoomState> {
    const settings = { ...this.state.settings, ...patch };
    const config = readModelConfig(this.env);
    this.setState({ ...this.state, settings, activeModel: activeModelId(config, settings) });
    return this.state;
  }

  /** One page of history before a cursor, newest page first (agents/room/history-pages.ts). */
  async listMessages(query: { before?: string; limit: number }): Promise<MessagePage> {
    return pageBefore(this.sessions.session(), query.before, query.limit);
  }

  /**
   * A send that did not come over this room's WebSocket. Everyone connected
   * sees it live, because the turn runs through the same `saveMessages`
   * path as any other.
   */
  async sendFromRest(body: SendMessageBody, author: MessageAuthor, arrival?: RestArrival): Promise<SendMessageResult> {
    return this.#rest.send(body, author, arrival, this.#fileRefs(body.files));
  }

  /** `sendFromRest` as server-sent events: user-message, chunk…, done. */
  async streamFromRest(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival
  ): Promise<ReadableStream<Uint8Array>> {
    return this.#rest.stream(body, author, arrival, this.#fileRefs(body.files));
  }

  /** The file parts of a message carrying these files of this room; 404 for one that is not (the overseer asks first). */
  fileRefs(fileIds: readonly string[]): Promise<RpcResult<FileRef[]>> {
    return asResult(() => fileIds.map((id) => this.#files.ref(this.#workspace(), this.name, this.#files.require(id))));
  }

  #fileRefs(fileIds: readonly string[] = []): FileRef[] {
    return fileIds.flatMap((id) => {
      const file = this.#files.get(id);
      return file ? [this.#files.ref(this.#workspace(), this.name, file)] : [];
    });
  }

  /** The file part for a url naming a file of this room (the frame guard's check of a socket send). */
  fileOf(url: string): FileRef | null {
    const id = fileIdFromUrl(url, this.name);
    const file = id ? this.#files.get(id) : null;
    return file ? this.#files.ref(this.#workspace(), this.name, file) : null;
  }

  /** The workspace: the overseer's name. */
  #workspace(): string {
    return this.parentPath.at(-1)?.name ?? DEFAULT_WORKSPACE;
  }

  // ── Files (room/room-files.ts): called by the overseer; the bytes never come here ──

  addFile(file: NewFile): RoomFile {
    return this.#files.add(file, Date.now());
  }

  listFiles(query: FilesQuery): Promise<RpcResult<FilePage>> {
    return asResult(() => this.#files.list(query.before, query.limit));
  }

  getFile(fileId: string): Promise<RpcResult<RoomFile>> {
    return asResult(() => this.#files.require(fileId));
  }

  deleteFile(fileId: string, by: MessageAuthor, anyone = false): Promise<RpcResult<RoomFile>> {
    return asResult(() => this.#files.delete(fileId, by, anyone));
  }

  /** A batch of an indexed file's passages (server/files/extract-passages.ts); false: the file is gone, stop. */
  addFilePassages(fileId: string, batch: PassageBatch): boolean {
    return this.#files.addPassages(fileId, batch);
  }

  failFileIndex(fileId: string, reason: string): void {
    this.#files.failIndex(fileId, reason);
  }

  // ── Traces (room/turn-trace.ts) ──

  listTraces(limit: number): TraceList {
    return { traces: this.#tracer.store.list(limit) };
  }

  getTrace(traceId: string): TraceDetail | null {
    return this.#tracer.store.get(traceId);
  }

  /** A span from a persona or task facet of this room (domain/tracing/facet-spans.ts). */
  reportSpan(report: unknown): void {
    const accepted = acceptFacetSpan(report);
    if (accepted) this.#tracer.report(accepted);
  }

  // ── Personas (roster rules in domain/personas/persona-roster.ts, answers in room-personas.ts) ──

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

  // ── Export, import, fork (see agents/room/room-transfer.ts) ──

  exportRoom(format: "json" | "markdown" | "ndjson", leafId?: string): RpcResult<ReadableStream<Uint8Array>> {
    const session = this.sessions.session();
    const sql = this.sql.bind(this);
    const header = exportHeader({
      id: this.name,
      settings: this.state.settings,
      personas: this.#personas.personas(),
      origin: this.#origin.get()
    });
    if (format === "markdown") return { ok: true, value: exportMarkdown(session, sql, header) };
    const memory = this.#memory.exportMemory();
    if (format === "json") return { ok: true, value: exportJson(session, sql, header, memory) };
    return { ok: true, value: exportNdjson(session, sql, header, memory, leafId) };
  }

  /** Whether a message is on this room's history (forks check before they create anything). */
  async hasMessage(messageId: string): Promise<boolean> {
    return (await this.sessions.session().getMessage(messageId)) !== null;
  }

  /** Imports a batch of already-validated messages after the current leaf. */
  async importMessages(messages: ChatMessage[], after?: string | null): Promise<void> {
    await appendMessages(this.sessions.session(), messages, after);
  }

  /** Imports kept earlier versions, each under its parent (before the transcript; see room/room-transfer.ts). */
  async importVersions(versions: ExportedVersion[]): Promise<void> {
    await insertVersions(this.sessions.session(), versions);
  }

  /** Reads another room's NDJSON export into this one (a fork), a batch at a time. */
  async importStream(stream: ReadableStream<Uint8Array>, origin: RoomOrigin | null): Promise<number> {
    if (origin) {
      this.#origin.set(origin);
      this.setState({ ...this.state, origin });
    }
    const { count, memory } = await appendFromNdjson(this.sessions.session(), stream);
    await this.#memory.importMemory(memory);
    return count;
  }

  /** Pins and summaries of an imported file, after its messages (room/room-memory.ts). */
  async importMemory(memory: ExportedMemory): Promise<void> {
    await this.#memory.importMemory(memory);
  }

  /** After an import or fork: re-read the in-memory window and report to the overseer. */
  async finishImport(): Promise<{ messageCount: number }> {
    this.messages = (await this.sessions.session().getRecentHistory(this.hydrationByteBudget)).messages as UIMessage[];
    this.#activity.recount();
    this.reportActivity();
    return { messageCount: this.#activity.visibleCount() };
  }

  origin(): RoomOrigin | null {
    return this.#origin.get();
  }

  /** The memory routes: pins, summaries, what an answer saw (room/room-memory.ts). */
  memoryCall(call: MemoryCall, who: MessageAuthor): Promise<RpcResult<MemoryCallResults[MemoryCall["op"]]>> {
    return asResult(() => this.#memory.call(call, who));
  }

  /** Every version of a message's position, oldest first (agents/room/versions.ts). */
  async messageVersions(messageId: string): Promise<RpcResult<MessageVersions>> {
    const session = this.sessions.session();
    return asResult(() => messageVersions(session, this.sql.bind(this), messageId));
  }

  /**
   * Writes an edit or a regeneration as a new version beside what it
   * replaces, before the turn runs (room/branches.ts). Called by the frame
   * guard once the chat-request guard planned it.
   */
  writeBranch(branch: Branch): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.#branches.write(branch);
  }

  /** This room's part of a search across rooms (see agents/room/room-search.ts). */
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
    // The overseer hears of the turn soon, not before the model request
    // (nor, for a short turn, apart from its end): nothing in the room list
    // needs it within the interval.
    this.#reports.defer();

    // Over budget: the turn ends with a structured error before any model call.
    // On the room's copy of the workspace's figure, unless it must ask (room/budget.ts).
    const refusal = await this.#budget.refusal();
    if (refusal) {
      this.#turnErrorCodes.set(trace.traceId, refusal.code);
      return refusedTurn(refusal, { createdAt: Date.now(), traceId: trace.traceId, answers: turn.answering });
    }

    // A regeneration's answer fills in the version written for it, on its branch.
    const version = this.#branches.takePendingAnswer(options?.continuation === true);
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

    // The assistant answers (room/assistant-turn.ts), or sums up a panel.
    return answerAsAssistant({
      config: readModelConfig(this.env),
      settings: this.state.settings,
      messageCount: this.messageCount(),
      turn,
      panel,
      version,
      trace,
      searchHistory: (query, limit) => this.searchHistory(query, limit),
      delegate: () => this.#delegation.tool(),
      onFinish,
      abortSignal: options?.abortSignal,
      failed: (code) => this.#turnErrorCodes.set(trace.traceId, code),
      files: {
        // A room without indexed documents pays one indexed lookup, no search.
        retrieve: (question, limit, attached) =>
          this.#files.hasPassages() ? this.#files.retrieve(question, limit, attached) : [],
        idOf: (url) => fileIdFromUrl(url, this.name),
        attachments: {
          describe: (url) => {
            const id = fileIdFromUrl(url, this.name);
            const file = id ? this.#files.get(id) : null;
            return file ? { ...file, firstLine: this.#files.firstLine(file.id) } : null;
          },
          imageBytes: async (fileId) => {
            const object = await this.env.FILES.get(fileKey(this.#workspace(), this.name, fileId));
            return object ? new Uint8Array(await object.arrayBuffer()) : null;
          },
          acceptsImages: acceptsImages(this.env, this.state.settings)
        }
      },
      memory: this.#memory
    });
  }

  /** The error code of a failed turn, by trace id, until its response hook runs (room/turn-end.ts). */
  #turnErrorCodes = new TurnErrorCodes();

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
    const errorCode = this.#turnErrorCodes.get(traceId) ?? null;
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
      // Why the answer ended early stays in the transcript itself.
      const marked = markEndedEarly(this.messages, result, {
        errorCode: this.#turnErrorCodes.get(traceId),
        stoppedBy: this.#outbox.stoppedBy(result.requestId),
        traceId
      });
      if (marked) await this.persistMessages(marked);
    }
    this.#turnErrorCodes.forget(traceId);
    // Every save appends to `this.messages`, and the framework's per-save
    // work is over all of it: cut it back to the hydration window now and
    // then, so a long session does not make every turn dearer. Clients take
    // a shorter snapshot as the live tail (use-chat-room.ts re-anchors on it).
    const bounded = this.#window.bound(this.messages);
    if (bounded !== this.messages) this.messages = bounded;
    // The turn's task results are in the transcript now: drop their facets.
    await this.#delegation.removeFinished();
    this.reportActivity();
  }

  /** A background task ended (called by name by the agent-tool runtime, see room/delegation.ts). */
  async onTaskFinished(run: AgentToolRunInfo, result: AgentToolLifecycleResult) {
    await this.#delegation.finished(run, result);
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
    const kept = messages.filter(isKeptMessage);
    if (kept.length < messages.length)
      console.warn(`[ChatRoom] refused ${messages.length - kept.length} invalid message(s)`);
    await super.persistMessages(kept, excludeBroadcastIds, options);
    // Acknowledge the outbox sends this stored (room/outbox-sends.ts).
    this.#outbox.persisted(kept);
  }

  /**
   * Everything stored has the one shape of domain/messages/persisted-message.ts:
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

  // ── Share-link viewers (routes/shares-routes.ts opens them; room/frame-guard.ts refuses their writes) ──

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

  /** Who has a socket open here now, once per identity (the overseer checks each still may see the room). */
  connectedCallers(): Caller[] {
    const callers = new Map<string, Caller>();
    for (const connection of this.getConnections()) {
      const caller = callerOf(connection);
      if (caller && caller.viewerOf === undefined) callers.set(caller.identity.id, caller);
    }
    return [...callers.values()];
  }

  /** Closes every socket of these identities (they may no longer see the room), saying why. */
  closeSocketsOf(identityIds: string[], code: number, reason: string): number {
    const ids = new Set(identityIds);
    let closed = 0;
    for (const connection of this.getConnections()) {
      const caller = callerOf(connection);
      if (!caller || caller.viewerOf !== undefined || !ids.has(caller.identity.id)) continue;
      connection.close(code, reason);
      closed++;
    }
    return closed;
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

  async onClose(connection: Connection) {
    this.#introspection.closed(connection);
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

  // ── Introspection (room/room-introspection.ts) ──

  /** The room's live agent tree: the room, each persona and running task under it, and its budgets. */
  describeAgents(): Promise<AgentTree> {
    return this.#introspection.describeAgents();
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
    if (!this.#overseer.present) return console.warn("[ChatRoom] not a facet: no overseer to report activity to");
    const live = this.#introspection.liveReport();
    const activity = { ...this.#activity.next(this.messages), live };
    try {
      // The answer is the workspace's budget figure, counting this report's tokens.
      this.#budget.learn(await reportToOverseer(this.#overseer, this.name, activity), live.tokensToday);
    } catch (error) {
      console.warn("[ChatRoom] failed to report activity:", error);
    }
  }
}

function notFound(message: string): Response {
  return Response.json(new AppError("not_found:route", 404, message).toBody(), { status: 404 });
}
