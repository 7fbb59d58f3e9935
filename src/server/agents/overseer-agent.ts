/**
 * OverseerAgent: one Durable Object per workspace. It owns the room
 * registry, gates every `/sub/chat-room/<id>` connection, and pushes the
 * live room list to every browser connected to it.
 *
 *   /agents/overseer-agent/<workspace>                 room-list socket
 *   /agents/overseer-agent/<workspace>/sub/chat-room/<id>   a room's socket
 *
 * **Existence is registry-owned.** A room exists when it has a row in
 * `rooms`; the gate and every RPC check that row, so no URL can conjure a
 * room and a deleted room stays deleted.
 * **Metadata is pushed, never pulled.** Rooms report their message count
 * and preview after each change (`recordRoomActivity`); listing rooms never
 * wakes a single facet.
 *
 * The class is the thin centre: the gate, the sockets and the RPC surface
 * the REST routes call, each RPC a few lines that check the registry and
 * call a room or a job module in overseer/: the rooms table (registry.ts),
 * rate limits and the room cap (admission.ts), export, import and fork
 * (workspace-transfer.ts), search across rooms (workspace-search.ts), share
 * links (share-links.ts), read marks, live status and workspace settings.
 * RPC failures come back as values (RpcResult, src/server/app-error.ts),
 * never as throws.
 */
import {
  Agent,
  type AgentPathStep,
  type Connection,
  type ConnectionContext,
  type DynamicAgentStub,
  type WSMessage
} from "agents";
import { WorkspaceAdmission } from "@/server/agents/overseer/admission";
import { WorkspaceBudgetFigures } from "@/server/agents/overseer/budget-figures";
import { deliverBroadcast, framesOf } from "@/server/agents/overseer/frame-batches";
import { LiveStatusTable } from "@/server/agents/overseer/live-status";
import { ReadMarksTable, readerTag } from "@/server/agents/overseer/read-marks";
import { RoomRegistry } from "@/server/agents/overseer/registry";
import { WorkspaceSettingsTable } from "@/server/agents/overseer/settings";
import { ShareLinks, ShareTable } from "@/server/agents/overseer/share-links";
import { SocketRoutes } from "@/server/agents/overseer/socket-routes";
import { rememberSocketTargets } from "@/server/agents/overseer/socket-targets";
import { WorkspaceFiles } from "@/server/agents/overseer/workspace-files";
import { searchRooms } from "@/server/agents/overseer/workspace-search";
import { WorkspaceTransfer } from "@/server/agents/overseer/workspace-transfer";
import type { MemoryCall } from "@/server/agents/room/room-memory";
import { AppError, asResult, type RpcResult, roomNotFound, unwrap } from "@/server/app-error";
import type { NewShare, OverseerRestApi, OverseerRoomApi, ShareRow } from "@/server/contracts/overseer-api";
import type { RestArrival } from "@/server/contracts/room-api";
import {
  CALLER_HEADER,
  type Caller,
  callerFromRequest,
  decodeCaller,
  rememberCaller
} from "@/server/domain/access/caller";
import type { WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import { fileKey, fileLimits, type UploadTicket } from "@/server/domain/files/file-limits";
import type { PendingRead } from "@/server/domain/rooms/read-positions";
import {
  generateRoomId,
  type RoomActivity,
  type RoomRow,
  toRoomDetail,
  toRoomSummary
} from "@/server/domain/rooms/room-rows";
import { searchDeadlineMs } from "@/server/domain/search/search-ranking";
import { LIST_TAG } from "@/server/domain/sockets/socket-tags";
import { MAX_TRACES_PER_ROOM } from "@/server/domain/tracing/trace-spans";
import type { ImportedRoom } from "@/server/domain/transfer/imported-room";
import type { Env } from "@/server/env";
import type { UpdateWorkspaceSettingsBody, WorkspaceSettings } from "@/shared/budgets";
import { MAX_MESSAGES_PER_ROOM } from "@/shared/constants";
import type { FilePage, FilesQuery, NewFile, RoomFile } from "@/shared/files";
import { authorOf } from "@/shared/identity";
import type { AgentTree, WorkspaceStatus } from "@/shared/introspection";
import type { CreatePersonaBody, Persona, UpdatePersonaBody } from "@/shared/personas";
import type {
  CreateRoomBody,
  MessagePage,
  MessagesQuery,
  MessageVersions,
  OverseerFrame,
  RoomDetail,
  RoomSettings,
  RoomSummary,
  SendMessageBody,
  SendMessageResult,
  UpdateRoomBody
} from "@/shared/protocol";
import type { SearchQuery, SearchResponse } from "@/shared/search";
import type { ShareView } from "@/shared/shares";
import type { TraceDetail, TraceList } from "@/shared/traces";
import type { ImportResult, RoomOrigin } from "@/shared/transfer";
import type { ReadMark } from "@/shared/unread";
import { ChatRoom } from "./chat-room";

const CHAT_ROOM_CLASS = "ChatRoom";
/** A `/sub/<class>/<name>` with another `/sub/` below it: rooms have no children. */
const NESTED_SUB_PATH = /\/sub\/[^/]+\/[^/]+\/sub(\/|$)/;

export class OverseerAgent extends Agent<Env> implements OverseerRestApi, OverseerRoomApi {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    if (!rememberSocketTargets(this)) console.warn("[OverseerAgent] socket targets are re-derived per frame");
    this.#routes = new SocketRoutes(this, ctx);
    if (!this.#routes.active) console.warn("[OverseerAgent] room frames are routed by a scan of every socket");
    // Tables in the constructor, not onStart: the /sub/ gate can run before
    // onStart on a fresh overseer, and it reads the registry.
    this.#registry = new RoomRegistry(ctx.storage.sql);
    this.#live = new LiveStatusTable(ctx.storage.sql);
    this.#settings = new WorkspaceSettingsTable(ctx.storage.sql);
    this.#budget = new WorkspaceBudgetFigures(env, this.#settings, this.#live, (ids, epoch) =>
      this.#voidBudgetCopies(ids, epoch)
    );
    this.#shares = new ShareLinks(new ShareTable(ctx.storage.sql), {
      requireRoom: (roomId) => this.#requireRow(roomId),
      room: (roomId) => this.#row(roomId),
      scheduleExpiry: (at, payload) => this.schedule(at, "expireShare", payload),
      closeViewers: (roomId, shareId) => this.#closeViewers(roomId, shareId)
    });
    this.#reads = new ReadMarksTable(ctx.storage.sql);
    this.#admission = new WorkspaceAdmission(env.RATE_LIMIT_SCALE, () => this.#registry.count());
    this.#transfer = new WorkspaceTransfer({
      registry: this.#registry,
      admission: this.#admission,
      room: (id) => this.dynamicAgents.get(ChatRoom, id),
      deleteRoom: (id) => this.dynamicAgents.delete(ChatRoom, id),
      announce: (row) => this.#broadcast({ type: "room_upserted", room: toRoomSummary(row) })
    });
    this.#files = new WorkspaceFiles(ctx.storage.sql, () => fileLimits(env), env.RATE_LIMIT_SCALE, {
      bucket: env.FILES,
      retryLater: () => void this.schedule(60, "runFilePurges"),
      waitUntil: (promise) => ctx.waitUntil(promise)
    });
  }

  /** Each socket's tag naming its target, and room frames delivered by it (overseer/socket-routes.ts). */
  #routes: SocketRoutes;
  /** Which rooms exist, and what the room list shows of them (overseer/registry.ts). */
  #registry: RoomRegistry;
  /** What rooms last reported about themselves (overseer/live-status.ts). */
  #live: LiveStatusTable;
  #settings: WorkspaceSettingsTable;
  /** The workspace budget as rooms hold it (overseer/budget-figures.ts). */
  #budget: WorkspaceBudgetFigures;
  /** Share links of this workspace's rooms (overseer/share-links.ts). */
  #shares: ShareLinks;
  /** How far each identity has read each room (overseer/read-marks.ts). */
  #reads: ReadMarksTable;
  /** Rate limits and the room cap (overseer/admission.ts). */
  #admission: WorkspaceAdmission;
  /** Export, import and fork, the overseer's half (overseer/workspace-transfer.ts). */
  #transfer: WorkspaceTransfer;
  /** Files' quotas, upload admission and purges of their bytes (overseer/workspace-files.ts). */
  #files: WorkspaceFiles;

  // ── Sockets ──

  /**
   * A room's broadcasts: one frame, or a batch of them in one call
   * (agents/room/broadcast-batch.ts), each sent to that room's sockets by
   * their tag (overseer/socket-routes.ts), or else by the framework.
   */
  async _cf_broadcastToSubAgent(
    ownerPath: ReadonlyArray<AgentPathStep>,
    message: string | ArrayBuffer | ArrayBufferView,
    without?: string[]
  ): Promise<void> {
    await this.__unsafe_ensureInitialized();
    if (this.#routes.deliver(ownerPath, framesOf(message, without))) return;
    await deliverBroadcast(ownerPath, message, without, (path, frame, except) =>
      super._cf_broadcastToSubAgent(path, frame, except)
    );
  }

  /**
   * The room-list socket only receives: clients may not write the
   * overseer's state (which the framework would store and push to every
   * list client), so every list connection is read-only.
   */
  shouldConnectionBeReadonly(): boolean {
    return true;
  }

  /**
   * The list client reads only our room frames; the framework's identity,
   * state and MCP frames would be noise (and leak the instance name).
   */
  shouldSendProtocolMessages(): boolean {
    return false;
  }

  validateStateChange(_next: unknown, source: Connection | "server") {
    if (source !== "server") throw new Error("The overseer's state is read-only for clients.");
  }

  /**
   * Every socket is tagged with its target (overseer/socket-routes.ts): a
   * room's frames go to its own sockets, the list's to list sockets. A list
   * socket is also tagged with its identity, so read marks go to that
   * person's sockets only.
   */
  getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    const route = this.#routes.tagFor(ctx.request);
    if (route !== LIST_TAG) return route ? [route] : [];
    const caller = callerFromRequest(ctx.request);
    return caller ? [LIST_TAG, readerTag(caller.identity.id)] : [LIST_TAG];
  }

  onConnect(connection: Connection, ctx: ConnectionContext) {
    const caller = rememberCaller(connection, ctx.request);
    this.#send(connection, { type: "rooms", rooms: this.listRooms() });
    if (caller) {
      this.#send(connection, { type: "read_marks", marks: this.#reads.forIdentity(caller.identity.id), replace: true });
    }
  }

  onMessage(connection: Connection, _message: WSMessage) {
    // The room list is read-only over the socket; changes go through REST.
    this.#send(connection, {
      type: "error",
      code: "bad_request:body",
      message: "This socket only receives the room list; use the REST API to change rooms."
    });
  }

  /**
   * The gate in front of every room socket and room HTTP request. Runs
   * before the framework would lazily create a facet, so an unknown or
   * deleted id gets 404 (a WebSocket is closed with 4404).
   */
  async onBeforeSubAgent(request: Request, child: { className: string; name: string }) {
    if (
      NESTED_SUB_PATH.test(new URL(request.url).pathname) ||
      child.className !== CHAT_ROOM_CLASS ||
      !this.#row(child.name) ||
      !this.dynamicAgents.has(ChatRoom, child.name)
    ) {
      return new Response(`Room "${child.name}" not found`, { status: 404 });
    }
    // A share viewer reaches only its link's room, and only while the link
    // works (the Worker checked too; this closes the gap to a revoke).
    const viewerOf = decodeCaller(request.headers.get(CALLER_HEADER))?.viewerOf;
    if (viewerOf !== undefined && !this.#shares.live(viewerOf, child.name)) {
      return new Response("This share link is no longer valid.", { status: 404 });
    }
  }

  // ── Share links (tokens are signed by the Worker, routes/shares-routes.ts; rows live in overseer/share-links.ts) ──

  /** Records a link the Worker signed. An expiring one is ended on time by an alarm, closing its viewers. */
  createShare(roomId: string, share: NewShare): Promise<RpcResult<ShareRow>> {
    return asResult(() => this.#shares.create(roomId, share));
  }

  listShares(roomId: string): Promise<RpcResult<ShareRow[]>> {
    return asResult(() => this.#shares.list(roomId));
  }

  /** Deletes the link at once, then closes every socket opened with it. */
  revokeShare(roomId: string, shareId: string): Promise<RpcResult<void>> {
    return asResult(() => this.#shares.revoke(roomId, shareId));
  }

  /** What a viewer holding a valid token may see; 404 for a revoked, expired or mismatched one. */
  openShare(shareId: string, roomId: string, tokenHash: string): Promise<RpcResult<ShareView>> {
    return asResult(() => this.#shares.open(shareId, roomId, tokenHash));
  }

  /** The alarm set by createShare. */
  async expireShare(payload: { roomId: string; shareId: string }) {
    await this.#shares.expire(payload);
  }

  async #closeViewers(roomId: string, shareId: string) {
    if (!this.#row(roomId) || !this.dynamicAgents.has(ChatRoom, roomId)) return;
    const room = await this.dynamicAgents.get(ChatRoom, roomId);
    await room.closeViewers(shareId);
  }

  // ── Registry RPC (called by the REST routes) ──
  // Expected failures come back as values (see RpcResult), never as throws.

  createRoom(input: CreateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      this.#admission.admitNewRooms(caller);
      const release = this.#admission.holdRooms(1);
      try {
        return await this.#spawnRoom(input);
      } finally {
        release();
      }
    });
  }

  getRoom(id: string): Promise<RpcResult<RoomDetail>> {
    return asResult(() => this.#getRoom(id));
  }

  updateRoom(id: string, patch: UpdateRoomBody): Promise<RpcResult<RoomDetail>> {
    return asResult(() => this.#updateRoom(id, patch));
  }

  deleteRoom(id: string): Promise<RpcResult<void>> {
    return asResult(() => this.#deleteRoom(id));
  }

  listMessages(id: string, query: MessagesQuery): Promise<RpcResult<MessagePage>> {
    return asResult(() =>
      this.#inRoom(id, async (room) =>
        query.around || query.after ? unwrap(await room.listMessagesNear(query)) : room.listMessages(query)
      )
    );
  }

  // ── Export, import, fork (room side: agents/room/room-transfer.ts) ──

  exportRoom(id: string, format: "json" | "markdown"): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() => this.#inRoom(id, async (room) => unwrap(await room.exportRoom(format))));
  }

  /** Every room as NDJSON, one room after another (overseer/workspace-transfer.ts). */
  exportWorkspace(): ReadableStream<Uint8Array> {
    return this.#transfer.exportWorkspace();
  }

  /** All or nothing: no room of the file appears until every one is made and filled (overseer/workspace-transfer.ts). */
  importRooms(rooms: ImportedRoom[], caller: Caller): Promise<RpcResult<ImportResult>> {
    return asResult(() => this.#transfer.importRooms(rooms, caller));
  }

  /** A new room holding the history up to and including `messageId` (overseer/workspace-transfer.ts). */
  forkRoom(id: string, messageId: string, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => this.#getRoom(await this.#transfer.forkRoom(id, messageId, caller)));
  }

  /** Where a room came from (a fork's link back). */
  roomOrigin(id: string): Promise<RpcResult<RoomOrigin | null>> {
    return asResult(() => this.#inRoom(id, (room) => room.origin()));
  }

  /** A room's memory: pins, summaries, what an answer saw (room/room-memory.ts). */
  roomMemory(id: string, call: MemoryCall, caller: Caller): Promise<RpcResult<unknown>> {
    return asResult(() =>
      this.#inRoom(id, async (room) => unwrap(await room.memoryCall(call, authorOf(caller.identity))))
    );
  }

  /** Every version of a message's position (edits and regenerations keep what they replace). */
  messageVersions(id: string, messageId: string): Promise<RpcResult<MessageVersions>> {
    return asResult(() => this.#inRoom(id, async (room) => unwrap(await room.messageVersions(messageId))));
  }

  /** Search across rooms: each room searches its own index; late rooms are reported, not waited for (overseer/workspace-search.ts). */
  search(query: SearchQuery): Promise<SearchResponse> {
    return searchRooms(query, {
      rooms: (only) => this.#registry.searchable(only),
      searchRoom: async (id, q, limit) => (await this.dynamicAgents.get(ChatRoom, id)).searchMessages(q, limit),
      deadlineMs: searchDeadlineMs(this.env)
    });
  }

  sendMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<SendMessageResult>> {
    return asResult(() => {
      this.#admission.admitMessages(caller);
      this.#requireSpace(id);
      return this.#inRoom(id, (room) => room.sendFromRest(body, authorOf(caller.identity), arrival));
    });
  }

  /** Like sendMessage, as server-sent events of the answer's chunks. */
  streamMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() => {
      this.#admission.admitMessages(caller);
      this.#requireSpace(id);
      return this.#inRoom(id, (room) => room.streamFromRest(body, authorOf(caller.identity), arrival));
    });
  }

  // ── Files: bytes go Worker ↔ R2 directly; here only admission, records and purges (overseer/workspace-files.ts) ──

  /** Before an upload reads a byte: the room exists, the caller may upload, and something fits. */
  admitUpload(id: string, caller: Caller): Promise<RpcResult<UploadTicket>> {
    return asResult(() => {
      this.#requireRow(id);
      return this.#files.admit(this.name, id, caller);
    });
  }

  /**
   * After the Worker stored an upload's bytes: the room records it. Fails
   * (and the Worker deletes the bytes) if the room went or filled up meanwhile.
   */
  registerFile(id: string, file: NewFile): Promise<RpcResult<RoomFile>> {
    return asResult(async () => {
      this.#files.checkFits(id, file.size);
      const stored = await this.#inRoom(id, (room) => room.addFile(file));
      this.#files.added(id, file.size);
      return stored;
    });
  }

  listFiles(id: string, query: FilesQuery): Promise<RpcResult<FilePage>> {
    return asResult(() => this.#inRoom(id, async (room) => unwrap(await room.listFiles(query))));
  }

  /** A file's record and where its bytes are. */
  getFile(id: string, fileId: string): Promise<RpcResult<{ file: RoomFile; key: string }>> {
    return asResult(() =>
      this.#inRoom(id, async (room) => ({
        file: unwrap(await room.getFile(fileId)),
        key: fileKey(this.name, id, fileId)
      }))
    );
  }

  /** The record goes at once (nobody reaches the file after this answers), then its bytes. */
  deleteFile(id: string, fileId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(async () => {
      const file = unwrap(await this.#inRoom(id, (room) => room.deleteFile(fileId, authorOf(caller.identity))));
      this.#files.removed(id, file.size, fileKey(this.name, id, fileId));
    });
  }

  /** The alarm a failed purge set (overseer/workspace-files.ts). */
  async runFilePurges() {
    await this.#files.runPurges();
  }

  /** What the workspace still holds of a room's files (tests prove a deleted room leaves nothing). */
  fileFootprint(id: string): { usage: { bytes: number; files: number }; purges: string[] } {
    const usage = this.#files.usage(id);
    return { usage: { bytes: usage.roomBytes, files: usage.roomFiles }, purges: this.#files.pendingPurges() };
  }

  // ── Personas: the room owns its roster; the registry only gates the room ──

  listPersonas(id: string): Promise<RpcResult<Persona[]>> {
    return asResult(() => this.#inRoom(id, (room) => room.listPersonas()));
  }

  createPersona(id: string, body: CreatePersonaBody): Promise<RpcResult<Persona>> {
    return asResult(async () => unwrap(await this.#inRoom(id, (room) => room.createPersona(body))));
  }

  updatePersona(id: string, personaId: string, patch: UpdatePersonaBody): Promise<RpcResult<Persona>> {
    return asResult(async () => unwrap(await this.#inRoom(id, (room) => room.updatePersona(personaId, patch))));
  }

  deletePersona(id: string, personaId: string): Promise<RpcResult<void>> {
    return asResult(async () => unwrap(await this.#inRoom(id, (room) => room.deletePersona(personaId))));
  }

  // ── Traces: each room keeps its own (room/trace-store.ts) ──

  describeAgents(id: string): Promise<RpcResult<AgentTree>> {
    return asResult(() => this.#inRoom(id, (room) => room.describeAgents()));
  }

  listTraces(id: string, limit: number): Promise<RpcResult<TraceList>> {
    return asResult(() => this.#inRoom(id, (room) => room.listTraces(limit)));
  }

  getTrace(id: string, traceId: string): Promise<RpcResult<TraceDetail>> {
    return asResult(() =>
      this.#inRoom(id, async (room) => {
        const trace = await room.getTrace(traceId);
        if (!trace) {
          throw new AppError(
            "not_found:trace",
            404,
            `No trace "${traceId}" in this room (a room keeps the traces of its latest ${MAX_TRACES_PER_ROOM} turns).`
          );
        }
        return trace;
      })
    );
  }

  listRooms(): RoomSummary[] {
    return this.#registry.list().map(toRoomSummary);
  }

  async #spawnRoom(input: CreateRoomBody): Promise<RoomDetail> {
    const id = generateRoomId();
    const settings: RoomSettings = {
      name: input.name,
      systemPrompt: input.systemPrompt ?? "",
      model: input.model ?? null,
      temperature: input.temperature ?? null
    };
    // Spawn and initialise the facet first: the registry row is what makes
    // the room reachable, so it must not appear before the room can answer.
    const room = await this.dynamicAgents.get(ChatRoom, id);
    const state = await room.initialize(settings);
    const row = this.#registry.insert(id, input.name, Date.now());
    this.#broadcast({ type: "room_upserted", room: toRoomSummary(row) });
    return toRoomDetail(row, state);
  }

  async #getRoom(id: string): Promise<RoomDetail> {
    const row = this.#requireRow(id);
    const room = await this.dynamicAgents.get(ChatRoom, id);
    return toRoomDetail(row, await room.describe());
  }

  async #updateRoom(id: string, patch: UpdateRoomBody): Promise<RoomDetail> {
    this.#requireRow(id);
    const room = await this.dynamicAgents.get(ChatRoom, id);
    const state = await room.updateSettings(patch);
    // The room may have been deleted while we waited on it.
    const row = this.#requireRow(id);
    if (patch.name !== undefined && patch.name !== row.name) {
      this.#registry.rename(id, patch.name);
      row.name = patch.name;
      this.#broadcast({ type: "room_upserted", room: toRoomSummary(row) });
    }
    return toRoomDetail(row, state);
  }

  /**
   * Registry row first, so the gate refuses reconnects at once; then the
   * facet, which aborts a running answer, closes the room's sockets and
   * wipes its storage.
   */
  async #deleteRoom(id: string): Promise<void> {
    this.#requireRow(id);
    this.#registry.delete(id);
    this.#live.forget(id);
    this.#budget.forget(id);
    this.#shares.deleteRoom(id);
    this.#reads.forgetRoom(id);
    this.#files.roomDeleted(this.name, id);
    this.#broadcast({ type: "room_deleted", id });
    await this.dynamicAgents.delete(ChatRoom, id);
  }

  // ── Introspection and budgets (answered from the overseer's own SQLite: no room wakes) ──

  workspaceStatus(): WorkspaceStatus {
    return this.#live.status(this.name, {
      roomListSockets: [...this.getConnections(LIST_TAG)].length,
      dailyTokenBudget: this.#dailyBudget()
    });
  }

  workspaceSettings(): WorkspaceSettings {
    return { dailyTokenBudget: this.#dailyBudget() };
  }

  /** Answers once every room holding a copy of the budget has dropped it: the next turn anywhere sees the change. */
  async updateWorkspaceSettings(patch: UpdateWorkspaceSettingsBody): Promise<WorkspaceSettings> {
    if (patch.dailyTokenBudget !== undefined) await this.#budget.setDaily(patch.dailyTokenBudget);
    return this.workspaceSettings();
  }

  /**
   * A room asks when its copy of the workspace's budget is missing, old or
   * near the limit (domain/budgets/workspace-budget-cache.ts); otherwise the answer
   * to its activity reports keeps the copy current.
   */
  workspaceBudget(roomId: string): WorkspaceBudgetFigure {
    return this.#budget.figureFor(roomId);
  }

  #dailyBudget(): number {
    return this.#budget.daily();
  }

  /** Rooms' copies of the budget are void (best effort; a copy also dies of age). */
  async #voidBudgetCopies(ids: string[], epoch: number) {
    const tell = async (id: string) => {
      try {
        if (this.#row(id)) await (await this.dynamicAgents.get(ChatRoom, id)).voidWorkspaceBudget(epoch);
      } catch (error) {
        console.warn("[OverseerAgent] a room kept a void budget copy:", error);
      }
    };
    await Promise.all(ids.map(tell));
  }

  /**
   * Called by a room after its transcript changed; answers the workspace's
   * budget figure, which the room keeps for its turns. Stale reports are dropped.
   */
  recordRoomActivity(id: string, activity: RoomActivity): WorkspaceBudgetFigure {
    return this.#budget.afterReport(
      id,
      () => this.#applyActivity(id, activity),
      (p) => this.ctx.waitUntil(p)
    );
  }

  #applyActivity(id: string, activity: RoomActivity) {
    const applied = this.#registry.applyActivity(id, activity);
    if (!applied) return; // deleted while the report was in flight, or stale
    const { before: row, after: next } = applied;
    if (activity.live) this.#live.record(id, activity.live);
    if (next.message_count < row.message_count) {
      // An edit shortened the path: whoever had read past its new end has not read the new version.
      for (const { identityId, mark } of this.#reads.clampRoom(id, Math.max(0, next.message_count - 1))) {
        this.#sendMarks(identityId, [mark]);
      }
    }
    this.#broadcast({ type: "room_upserted", room: toRoomSummary(next) });
  }

  /**
   * Called by a room with the positions its readers reached (computed from
   * the room's own count). Each moved mark goes to its own identity's list
   * sockets, every tab of theirs, and to no one else.
   */
  recordReads(roomId: string, reads: PendingRead[]): void {
    if (!this.#row(roomId)) return; // deleted while the report was in flight
    for (const { identityId, count, messageId } of reads) {
      const moved = this.#reads.advance(identityId, { roomId, count, messageId });
      if (moved) this.#sendMarks(identityId, [moved]);
    }
  }

  /** To that identity's own list sockets (every tab of theirs), never anyone else's. */
  #sendMarks(identityId: string, marks: ReadMark[]) {
    const frame = JSON.stringify({ type: "read_marks", marks, replace: false } satisfies OverseerFrame);
    for (const connection of this.getConnections(readerTag(identityId))) connection.send(frame);
  }

  // ── Helpers ──

  /** The room's own socket path checks its exact count; REST uses the registry's. */
  #requireSpace(id: string) {
    if (this.#requireRow(id).message_count >= MAX_MESSAGES_PER_ROOM) {
      throw new AppError(
        "conflict:room_full",
        409,
        `This room holds ${MAX_MESSAGES_PER_ROOM} messages, the most it can. Start a new room.`
      );
    }
  }

  #row(id: string): RoomRow | undefined {
    return this.#registry.row(id);
  }

  #requireRow(id: string): RoomRow {
    return this.#registry.require(id);
  }

  /**
   * Runs a call on a registered room. A room deleted mid-call fails with
   * 404, not with whatever the aborted facet threw.
   */
  async #inRoom<T>(id: string, call: (room: DynamicAgentStub<ChatRoom>) => Promise<T>): Promise<T> {
    this.#requireRow(id);
    const room = await this.dynamicAgents.get(ChatRoom, id);
    try {
      return await call(room);
    } catch (error) {
      if (!this.#row(id)) throw roomNotFound(id);
      throw error;
    }
  }

  #send(connection: Connection, frame: OverseerFrame) {
    connection.send(JSON.stringify(frame));
  }

  /** To the room-list sockets only: the framework's `broadcast` would walk every room socket too. */
  #broadcast(frame: OverseerFrame) {
    const message = JSON.stringify(frame);
    for (const connection of this.getConnections(LIST_TAG)) connection.send(message);
  }
}
