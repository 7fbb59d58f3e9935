/**
 * ChatRoom: one room, a facet of its workspace's OverseerAgent. The thin centre: the framework's
 * hooks and the room's RPC surface, each a few lines handing over to the room's jobs, made and
 * wired in room/room-jobs.ts; the turn's sequence (trace, budget, who answers, the answer, how it
 * ends) is one job, room/turn-sequence.ts, because that order is the room's contract.
 *
 *   OverseerAgent ("default")           registry, gate, REST entry
 *     └── ChatRoom (<roomId>)           this file: hooks, RPC surface
 *           ├── PersonaAgent (<id>)     a persona's answers and notes
 *           └── TaskAgent (<runId>)     a delegated task
 *
 * AIChatAgent gives us persistence of every message part, streaming to every socket in the room,
 * cancel, resumable streams kept in SQLite and recovery after eviction; what we add by hand, and
 * where, is listed in room-jobs.ts. The RPC surface is declared in contracts/room-api.ts: a new
 * method goes there first.
 */
import { AIChatAgent, type ChatResponseResult, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import type { AgentToolLifecycleResult, AgentToolRunInfo, Connection, ConnectionContext, WSMessage } from "agents";
import type { GenerateTextOnFinishCallback, ToolSet, UIMessage } from "ai";
import { identityLimits } from "@/server/agents/identity-limit-client";
import { taskStopRequest } from "@/server/agents/room/frames";
import { patchFramework } from "@/server/agents/room/framework-patches";
import { pageBefore, pageNear } from "@/server/agents/room/history-pages";
import { runMessageCall } from "@/server/agents/room/message-calls";
import type { ConnectionInfo } from "@/server/agents/room/presence";
import { roomJobs } from "@/server/agents/room/room-jobs";
import { searchHistory, searchRoomMessages } from "@/server/agents/room/room-search";
import { initialRoomState, newRoomState, withCurrentModel, withSettings } from "@/server/agents/room/room-state";
import { closeSocketsOf, closeViewers, connectedCallers, isViewerSocket } from "@/server/agents/room/socket-access";
import { messageVersions } from "@/server/agents/room/versions";
import { ViewerSockets } from "@/server/agents/room/viewer-sockets";
import { AppError, asResult, type RpcResult } from "@/server/app-error";
import type {
  ChatRoomApi,
  MemoryCall,
  MemoryCallResults,
  MessageCall,
  MessageCallResults,
  RestArrival,
  RoomParentApi,
  ToolsCall,
  ToolsCallResults
} from "@/server/contracts/room-api";
import type { Caller } from "@/server/domain/access/caller";
import { MAX_TASKS_PER_ROOM } from "@/server/domain/facets/delegation-limits";
import type { PassageBatch } from "@/server/domain/files/text-passages";
import { isKeptMessage, normalizeMessage, unreadableMessage } from "@/server/domain/messages/persisted-message";
import { acceptFacetSpan } from "@/server/domain/tracing/facet-spans";
import { lazyKeepAlive } from "@/server/domain/turns/lazy-keep-alive";
import { memoryWindowBytes } from "@/server/domain/turns/memory-window";
import type { FileSearchHit, HistorySearchHit } from "@/server/domain/turns/room-tools";
import type { Env } from "@/server/env";
import { readModelConfig } from "@/server/model/provider";
import type { CatchUp, CatchUpSince } from "@/shared/catch-up";
import type { FileCopy, FilePage, FileRef, FilesQuery, NewFile, RoomFile } from "@/shared/files";
import type { MessageAuthor } from "@/shared/identity";
import type { AgentTree } from "@/shared/introspection";
import type { CreatePersonaBody, Persona, UpdatePersonaBody } from "@/shared/personas";
import type {
  ChatMessage,
  MessagePage,
  MessagesQuery,
  MessageVersions,
  RoomSettings,
  RoomState,
  SendMessageBody,
  SendMessageResult
} from "@/shared/protocol";
import type { SearchHit } from "@/shared/search";
import type { TraceDetail, TraceList } from "@/shared/traces";
import type { ExportedMemory, ExportedVersion, RoomOrigin } from "@/shared/transfer";
import type { PersonaFootprint } from "./persona-agent";
import { TaskAgent } from "./task-agent";

export class ChatRoom extends AIChatAgent<Env, RoomState> implements ChatRoomApi, RoomParentApi {
  /** Wake-time hydration window, sized from the context budget (domain/turns/memory-window.ts): storage keeps every
   * message, this bounds what sits in memory, so a 100,000-message room wakes, and turns, as fast as a small one. */
  hydrationByteBudget = memoryWindowBytes(readModelConfig(this.env).contextTokenBudget);

  initialState: RoomState = initialRoomState();
  #viewers = new ViewerSockets(this);
  /** The framework, changed where a facet pays for it on every frame or turn (room/framework-patches.ts). */
  #framework = patchFramework(this);
  /** Every job of the room, wired to the others (room/room-jobs.ts). */
  #jobs = roomJobs(this, {
    env: this.env,
    ctx: this.ctx,
    identityLimits: identityLimits(this.env),
    streaming: () => this._resumableStream.hasActiveStream(),
    broadcastsDelivered: async () => this.#framework.broadcasts?.delivered(),
    continueAnswer: () => this.continueLastTurn(),
    scheduleExpiry: (at) => this.schedule(at, "expireToolApprovals")
  });

  /** The framework's own cap on child runs, behind RoomDelegation's clearer refusal. */
  maxConcurrentAgentTools = MAX_TASKS_PER_ROOM + 1;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Constructed means woken: whatever a previous life left running ended
    // with it. Done here, before the framework's recovery can resume a turn.
    this.#jobs.tracer.wake();
    // The app talks to rooms over REST and the room socket only: not the framework's HTTP (e.g. `get-messages`).
    this.onRequest = async () =>
      new AppError("not_found:route", 404, "No such endpoint on a room; use the REST API.").toResponse();
    // The framework pushes its MCP state (server URLs included) to every member's
    // socket; the room's servers are shown to its managers over REST (mcp/mcp-servers.ts).
    (this as unknown as { broadcastMcpServers: () => void }).broadcastMcpServers = () => {};
    // AIChatAgent wrapped onMessage in its own constructor to take its protocol frames. Wrap it once more,
    // so every frame passes our checks before the framework acts on it.
    const frameworkOnMessage = this.onMessage.bind(this);
    this.onMessage = async (connection: Connection, message: WSMessage) => {
      await this.#jobs.frameGuard.check(connection, message, frameworkOnMessage);
    };
    // Outermost: what the room sends a viewer names people by alias (room/viewer-sockets.ts).
    this.#viewers.wrapHandlers(this);
  }

  // ── Lifecycle ──

  async onStart() {
    this.#jobs.activity.createTable();
    const refreshed = withCurrentModel(this.state, readModelConfig(this.env));
    if (refreshed) this.setState(refreshed);
  }

  /** The framework's keep-alive, taken only by work that outlives a few seconds (domain/turns/lazy-keep-alive.ts):
   * in a facet each one is a pair of RPCs to the overseer and alarm writes there, and a turn takes three. */
  async keepAlive(): Promise<() => void> {
    return lazyKeepAlive(() => super.keepAlive());
  }

  // ── RPC from the overseer ──

  async initialize(settings: RoomSettings): Promise<RoomState> {
    this.setState(newRoomState(settings, readModelConfig(this.env)));
    return this.state;
  }

  describe(): RoomState {
    return this.state;
  }

  voidWorkspaceBudget(epoch: number): void {
    this.#jobs.budget.void(epoch);
  }

  async updateSettings(patch: Partial<RoomSettings>): Promise<RoomState> {
    this.setState(withSettings(this.state, patch, readModelConfig(this.env)));
    return this.state;
  }

  /** One page of history before a cursor, newest page first (agents/room/history-pages.ts). */
  async listMessages(query: { before?: string; limit: number }): Promise<MessagePage> {
    return this.#withReactions(await pageBefore(this.sessions.session(), query.before, query.limit));
  }

  /** The page around a message, or just after it (deep links; see agents/room/history-pages.ts). */
  async listMessagesNear(query: MessagesQuery): Promise<RpcResult<MessagePage>> {
    const session = this.sessions.session();
    return asResult(async () => this.#withReactions(await pageNear(session, this.sql.bind(this), query)));
  }

  /** A page carries its messages' reactions (room/room-reactions.ts). */
  #withReactions(page: MessagePage): MessagePage {
    return { ...page, reactions: this.#jobs.reactions.of(page.messages.map((m) => m.id)) };
  }

  /** A reaction, a queued question withdrawn, or the caller's private asides (room/message-calls.ts). */
  messageCall(call: MessageCall, who: MessageAuthor): Promise<RpcResult<MessageCallResults[MessageCall["op"]]>> {
    return asResult(() => runMessageCall(this.#jobs, call, who));
  }

  /** A send not over this room's WebSocket, seen live by everyone connected (room/rest-bridge.ts). */
  sendFromRest(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival
  ): Promise<RpcResult<SendMessageResult>> {
    return asResult(() => this.#jobs.rest.send(body, author, arrival, this.#jobs.attachments.refs(body.files)));
  }

  /** `sendFromRest` as server-sent events: user-message, chunk…, done. */
  streamFromRest(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival
  ): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() => this.#jobs.rest.stream(body, author, arrival, this.#jobs.attachments.refs(body.files)));
  }

  /** The file parts of a message carrying these files of this room; 404 for one that is not (the overseer asks first). */
  fileRefs(fileIds: readonly string[]): Promise<RpcResult<FileRef[]>> {
    return asResult(() => this.#jobs.attachments.requireRefs(fileIds));
  }

  // ── Files (room/room-files.ts): called by the overseer; the bytes never come here ──

  addFile(file: NewFile): RoomFile {
    return this.#jobs.files.add(file, Date.now());
  }

  listFiles(query: FilesQuery): Promise<RpcResult<FilePage>> {
    return asResult(() => this.#jobs.files.list(query.before, query.limit));
  }

  getFile(fileId: string): Promise<RpcResult<RoomFile>> {
    return asResult(() => this.#jobs.files.require(fileId));
  }

  deleteFile(fileId: string, by: MessageAuthor, anyone = false): Promise<RpcResult<RoomFile>> {
    return asResult(() => this.#jobs.files.delete(fileId, by, anyone));
  }

  addFilePassages(fileId: string, batch: PassageBatch): boolean {
    return this.#jobs.files.addPassages(fileId, batch);
  }

  failFileIndex(fileId: string, reason: string): void {
    this.#jobs.files.failIndex(fileId, reason);
  }

  // ── Traces (room/turn-trace.ts) ──

  listTraces(limit: number): TraceList {
    return { traces: this.#jobs.tracer.store.list(limit) };
  }

  getTrace(traceId: string): TraceDetail | null {
    return this.#jobs.tracer.store.get(traceId);
  }

  /** A span from a persona or task facet of this room (domain/tracing/facet-spans.ts). */
  reportSpan(report: unknown): void {
    const accepted = acceptFacetSpan(report);
    if (accepted) this.#jobs.tracer.report(accepted);
  }

  // ── Personas (roster rules in domain/personas/persona-roster.ts, answers in room-personas.ts) ──

  listPersonas(): Persona[] {
    return this.#jobs.personas.personas();
  }

  createPersona(body: CreatePersonaBody): Promise<RpcResult<Persona>> {
    return asResult(() => this.#jobs.personas.create(body));
  }

  updatePersona(personaId: string, patch: UpdatePersonaBody): Promise<RpcResult<Persona>> {
    return asResult(() => this.#jobs.personas.update(personaId, patch));
  }

  deletePersona(personaId: string): Promise<RpcResult<void>> {
    return asResult(() => this.#jobs.personas.delete(personaId));
  }

  /** A persona's `react` tool, from its facet (room/room-personas.ts). */
  reactAsPersona(personaId: string, messageId: string, emoji: string): Promise<{ reacted: true; emoji: string }> {
    return this.#jobs.personas.reactAs(personaId, messageId, emoji);
  }

  /** The task facets this room holds now (tests prove finished tasks leave none). */
  taskFacets(): string[] {
    return this.dynamicAgents.list(TaskAgent).map((facet) => facet.name);
  }

  /** What a persona's facet stores (tests prove deletes wipe it). Spawns it if absent. */
  personaFootprint(personaId: string): Promise<PersonaFootprint & { registered: boolean }> {
    return this.#jobs.personas.footprint(personaId);
  }

  // ── Export, import, fork (see agents/room/room-transfer.ts) ──

  exportRoom(format: "json" | "markdown" | "ndjson", leafId?: string): RpcResult<ReadableStream<Uint8Array>> {
    return { ok: true, value: this.#jobs.transfer.export(format, leafId) };
  }

  async hasMessage(messageId: string): Promise<boolean> {
    return this.#jobs.transfer.hasMessage(messageId);
  }

  /** The files a fork at `messageId` copies (their bytes are copied in R2 by the overseer). */
  forkFiles(messageId: string): Promise<RoomFile[]> {
    return this.#jobs.transfer.filesUpTo(messageId);
  }

  copyFileOut(fileId: string): Promise<RpcResult<FileCopy>> {
    return asResult(() => this.#jobs.transfer.copyFileOut(fileId));
  }

  copyFileIn(copy: FileCopy): Promise<RpcResult<void>> {
    return asResult(() => this.#jobs.transfer.copyFileIn(copy));
  }

  async importMessages(messages: ChatMessage[], after?: string | null): Promise<void> {
    await this.#jobs.transfer.importMessages(messages, after);
  }

  async importVersions(versions: ExportedVersion[]): Promise<void> {
    await this.#jobs.transfer.importVersions(versions);
  }

  async importStream(stream: ReadableStream<Uint8Array>, origin: RoomOrigin | null): Promise<number> {
    return this.#jobs.transfer.importStream(stream, origin);
  }

  /** After an import or fork: re-read the in-memory window and report to the overseer. */
  async finishImport(): Promise<{ messageCount: number }> {
    this.messages = (await this.sessions.session().getRecentHistory(this.hydrationByteBudget)).messages as UIMessage[];
    this.#jobs.activity.recount();
    this.reportActivity();
    return { messageCount: this.#jobs.activity.visibleCount() };
  }

  async importMemory(memory: ExportedMemory): Promise<void> {
    await this.#jobs.memory.importMemory(memory);
  }

  origin(): RoomOrigin | null {
    return this.#jobs.origin.get();
  }

  /** The memory routes: pins, summaries, what an answer saw (room/room-memory.ts). */
  memoryCall(call: MemoryCall, who: MessageAuthor): Promise<RpcResult<MemoryCallResults[MemoryCall["op"]]>> {
    return asResult(() => this.#jobs.memory.call(call, who));
  }

  /** The MCP and approval routes: servers, tool policies, decisions (room/mcp-jobs.ts). */
  toolsCall(call: ToolsCall, who: MessageAuthor): Promise<RpcResult<ToolsCallResults[ToolsCall["op"]]>> {
    return asResult(() => this.#jobs.tools.call(call, who));
  }

  /** The alarm of an approval's deadline: calls nobody decided in time are denied (room/room-approvals.ts). */
  async expireToolApprovals(): Promise<void> {
    await this.#jobs.tools.approvals.expire();
  }

  /** Every version of a message's position, oldest first (agents/room/versions.ts). */
  async messageVersions(messageId: string): Promise<RpcResult<MessageVersions>> {
    const session = this.sessions.session();
    return asResult(() => messageVersions(session, this.sql.bind(this), messageId));
  }

  /** What a reader has not read, summed up for them alone (room/room-catch-up.ts). */
  catchUp(since: CatchUpSince): Promise<RpcResult<CatchUp>> {
    return asResult(() => this.#jobs.catchUp.since(since));
  }

  /** This room's part of a search across rooms (see agents/room/room-search.ts). */
  async searchMessages(query: string, limit: number): Promise<SearchHit[]> {
    return searchRoomMessages(this.sessions.session(), this.sql.bind(this), query, limit);
  }

  /** Full-text search over this room's own transcript (the model's tool, and its personas'). */
  async searchHistory(query: string, limit: number): Promise<HistorySearchHit[]> {
    return searchHistory(this.sessions.session(), query, limit);
  }

  /** Full-text search over this room's files (a persona's `search_files` tool). */
  async searchFiles(query: string, limit: number): Promise<FileSearchHit[]> {
    return this.#jobs.attachments.search(query, limit);
  }

  // ── The turn (room/turn-sequence.ts) ──

  async onChatMessage(onFinish: GenerateTextOnFinishCallback<ToolSet>, options?: OnChatMessageOptions) {
    return this.#jobs.turns.start(onFinish, options);
  }

  protected async onChatResponse(result: ChatResponseResult) {
    await this.#jobs.turns.finish(result);
  }

  /** A background task ended (called by name by the agent-tool runtime, see room/delegation.ts). */
  async onTaskFinished(run: AgentToolRunInfo, result: AgentToolLifecycleResult) {
    await this.#jobs.delegation.finished(run, result);
  }

  /**
   * Only messages of the two roles the app knows are ever written: this is
   * the one write path (sockets, REST, marks, recovery all come through it).
   * Never the framework's "delete the rows a request lacks": a chat request names its new
   * message alone (chat-request-guard.ts), and rows leave only by the room's own code.
   * Also where outbox sends learn they are stored.
   */
  async persistMessages(messages: UIMessage[], excludeBroadcastIds?: string[]): Promise<void> {
    const kept = messages.filter(isKeptMessage);
    if (kept.length < messages.length)
      console.warn(`[ChatRoom] refused ${messages.length - kept.length} invalid message(s)`);
    await super.persistMessages(kept, excludeBroadcastIds);
    // Acknowledge the outbox sends this stored (room/outbox-sends.ts).
    this.#jobs.outbox.persisted(kept);
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
    this.#viewers.broadcast(msg, without, (frame, except) => super.broadcast(frame, except));
    this.#jobs.rest.tap(msg);
  }

  // ── What reaches a room ──

  /**
   * A room has no children. Without this, `…/sub/chat-room/<id>/sub/…`
   * would lazily create facets of this facet that the registry never sees.
   */
  async onBeforeSubAgent(): Promise<Response> {
    return new AppError("not_found:route", 404, "A room has no sub-agents.").toResponse();
  }

  /** The one HTTP request a room takes: its MCP servers' OAuth callback (room/mcp-jobs.ts); `onRequest` refuses the rest. */
  async fetch(request: Request): Promise<Response> {
    return (await this.#jobs.tools.oauthCallback(request, this.lifecycle)) ?? super.fetch(request);
  }

  /** Only the server changes room state; clients change settings over REST. */
  validateStateChange(_next: RoomState, source: Connection | "server") {
    if (source !== "server") throw new Error("Room state is read-only for clients.");
  }

  // ── Who the sockets belong to: share-link viewers, people who lost access (room/socket-access.ts) ──

  /** A viewer's socket is the framework's readonly connection (see room/socket-access.ts for why). */
  shouldConnectionBeReadonly(_connection: Connection, ctx: ConnectionContext): boolean {
    return isViewerSocket(ctx);
  }

  /** Viewers get the transcript and its streams, not the room's state (settings, system prompt, personas). */
  shouldSendProtocolMessages(_connection: Connection, ctx: ConnectionContext): boolean {
    return !isViewerSocket(ctx);
  }

  closeViewers(shareId: string): number {
    return closeViewers(this.getConnections(), shareId);
  }

  connectedCallers(): Caller[] {
    return connectedCallers(this.getConnections());
  }

  closeSocketsOf(identityIds: string[], code: number, reason: string): number {
    return closeSocketsOf(this.getConnections(), identityIds, code, reason);
  }

  // ── Sockets: presence, typing, read marks, task stops ──

  async onConnect(connection: Connection<ConnectionInfo>, ctx: ConnectionContext) {
    if (this.#jobs.presence.join(connection, ctx)) {
      await this.#jobs.opening(connection, ctx);
      this.#jobs.liveTurns.greet(connection);
      this.#jobs.reactions.greet(
        connection,
        this.messages.map((m) => m.id)
      );
    }
    this.reportActivity(); // the overseer's socket count
  }

  async onClose(connection: Connection) {
    this.#jobs.introspection.closed(connection);
    this.#jobs.presence.leave(connection);
    this.reportActivity();
  }

  async onMessage(connection: Connection<ConnectionInfo>, message: WSMessage) {
    // AIChatAgent has already taken its own protocol frames; what reaches
    // here is ours or garbage.
    if (this.#jobs.reads.receive(connection, message)) return;
    const runId = taskStopRequest(message);
    if (runId) await this.#jobs.delegation.stop(runId);
    else this.#jobs.presence.receive(connection, message);
  }

  // ── Introspection (room/room-introspection.ts) and reports to the overseer (room/activity.ts) ──

  /** The room's live agent tree: the room, each persona and running task under it, and its budgets. */
  describeAgents(): Promise<AgentTree> {
    return this.#jobs.introspection.describeAgents();
  }

  messageCount(): number {
    return this.#jobs.activity.messageCount();
  }

  /** Best effort, coalesced: a missed report is corrected by the next one. */
  protected reportActivity() {
    this.#jobs.reports.request();
  }
}
