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
 */
import {
  Agent,
  type AgentPathStep,
  type Connection,
  type ConnectionContext,
  type DynamicAgentStub,
  type WSMessage
} from "agents";
import type { UpdateWorkspaceSettingsBody, WorkspaceSettings } from "../../shared/budgets";
import {
  ADDRESS_LIMIT_FACTOR,
  MAX_MESSAGES_PER_ROOM,
  MAX_ROOM_NAME_LENGTH,
  MAX_ROOMS_PER_WORKSPACE,
  RATE_LIMITS
} from "../../shared/constants";
import { authorOf, type MessageAuthor } from "../../shared/identity";
import type { AgentTree, WorkspaceStatus } from "../../shared/introspection";
import type { CreatePersonaBody, Persona, PersonaRef, UpdatePersonaBody } from "../../shared/personas";
import type {
  ChatMessage,
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
} from "../../shared/protocol";
import type { SearchQuery, SearchResponse } from "../../shared/search";
import { MAX_SHARES_PER_ROOM, type ShareView } from "../../shared/shares";
import type { TraceDetail, TraceList } from "../../shared/traces";
import type { ExportedVersion, ImportResult, RoomOrigin } from "../../shared/transfer";
import type { ReadMark } from "../../shared/unread";
import { budgetDefaults } from "../domain/budgets";
import {
  CALLER_HEADER,
  type Caller,
  callerFromRequest,
  decodeCaller,
  limitKeys,
  rememberCaller
} from "../domain/caller";
import { RateLimiter, rateScaleFrom, scaled } from "../domain/rate-limit";
import { type ImportedRoom, withPersonaIds } from "../domain/room-import";
import { applyActivity, generateRoomId, type RoomActivity, type RoomRow, toRoomSummary } from "../domain/rooms";
import { fanOut, rankHits, SEARCH_CONCURRENCY, searchDeadlineMs } from "../domain/search";
import { planRoomSearch, type SearchableRoom } from "../domain/search-plan";
import { MAX_TRACES_PER_ROOM } from "../domain/trace";
import type { PendingRead } from "../domain/unread";
import type { Env } from "../env";
import { AppError, asResult, type RpcResult, rateLimited, roomNotFound, unwrap } from "../errors";
import { ChatRoom, type RestArrival } from "./chat-room";
import { deliverBroadcast } from "./overseer/frame-batches";
import { LiveStatusTable } from "./overseer/live-status";
import { ReadMarksTable, readerTag } from "./overseer/read-marks";
import { WorkspaceSettingsTable } from "./overseer/settings";
import { type ShareRow, ShareTable } from "./overseer/shares";
import { rememberSocketTargets } from "./overseer/socket-targets";

/** Messages per import RPC: keeps each call's payload small. */
const IMPORT_BATCH = 500;

const shareGone = () => new AppError("not_found:share", 404, "This share link is no longer valid.");

/** "Design" → "Design (fork)", within the name limit. */
function forkName(name: string): string {
  const suffix = " (fork)";
  return name.slice(0, MAX_ROOM_NAME_LENGTH - suffix.length) + suffix;
}

const CHAT_ROOM_CLASS = "ChatRoom";
/** A `/sub/<class>/<name>` with another `/sub/` below it: rooms have no children. */
const NESTED_SUB_PATH = /\/sub\/[^/]+\/[^/]+\/sub(\/|$)/;

export class OverseerAgent extends Agent<Env> {
  // Per identity and per address, in this workspace. RATE_LIMIT_SCALE=0 turns them off.
  #createLimiter = new RateLimiter(scaled(RATE_LIMITS.restRoomCreate, rateScaleFrom(this.env.RATE_LIMIT_SCALE)));
  #sendLimiter = new RateLimiter(scaled(RATE_LIMITS.restSend, rateScaleFrom(this.env.RATE_LIMIT_SCALE)));
  #createAddressLimiter = new RateLimiter(
    scaled(RATE_LIMITS.restRoomCreate, rateScaleFrom(this.env.RATE_LIMIT_SCALE) * ADDRESS_LIMIT_FACTOR)
  );
  #sendAddressLimiter = new RateLimiter(
    scaled(RATE_LIMITS.restSend, rateScaleFrom(this.env.RATE_LIMIT_SCALE) * ADDRESS_LIMIT_FACTOR)
  );

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    if (!rememberSocketTargets(this)) console.warn("[OverseerAgent] socket targets are re-derived per frame");
    // In the constructor, not onStart: the /sub/ gate can run before
    // onStart on a fresh overseer, and it reads this table.
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS rooms (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_active_at INTEGER NOT NULL,
      message_count INTEGER NOT NULL DEFAULT 0,
      last_preview TEXT,
      activity_seq INTEGER NOT NULL DEFAULT 0
    )`);
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS rooms_by_activity ON rooms (last_active_at DESC, id)");
    this.#live = new LiveStatusTable(ctx.storage.sql);
    this.#settings = new WorkspaceSettingsTable(ctx.storage.sql);
    this.#shares = new ShareTable(ctx.storage.sql);
    this.#reads = new ReadMarksTable(ctx.storage.sql);
  }

  /** What rooms last reported about themselves (overseer/live-status.ts). */
  #live: LiveStatusTable;
  #settings: WorkspaceSettingsTable;
  /** Share links of this workspace's rooms (overseer/shares.ts). */
  #shares: ShareTable;
  /** How far each identity has read each room (overseer/read-marks.ts). */
  #reads: ReadMarksTable;

  // ── Sockets ──

  /**
   * A room's broadcasts: one frame, or a batch of them in one call
   * (agents/room/broadcast-batch.ts), each delivered by the framework.
   */
  async _cf_broadcastToSubAgent(
    ownerPath: ReadonlyArray<AgentPathStep>,
    message: string | ArrayBuffer | ArrayBufferView,
    without?: string[]
  ): Promise<void> {
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

  /** A list socket is tagged with its identity, so read marks go to that person's sockets only. */
  getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    const caller = callerFromRequest(ctx.request);
    return caller ? [readerTag(caller.identity.id)] : [];
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
    if (viewerOf !== undefined && !this.#liveShare(viewerOf, child.name)) {
      return new Response("This share link is no longer valid.", { status: 404 });
    }
  }

  // ── Share links (tokens are signed by the Worker, routes/shares.ts; rows live in overseer/shares.ts) ──

  /** Records a link the Worker signed. An expiring one is ended on time by an alarm, closing its viewers. */
  createShare(
    roomId: string,
    share: { id: string; tokenHash: string; createdAt: number; expiresAt: number | null; createdBy: MessageAuthor }
  ): Promise<RpcResult<ShareRow>> {
    return asResult(async () => {
      this.#requireRow(roomId);
      const now = Date.now();
      this.#shares.deleteExpired(now);
      if (this.#shares.active(roomId, now).length >= MAX_SHARES_PER_ROOM) {
        throw new AppError(
          "conflict:share_limit",
          409,
          `This room has ${MAX_SHARES_PER_ROOM} active share links, the most it keeps. Revoke one first.`
        );
      }
      const row = {
        id: share.id,
        room_id: roomId,
        token_hash: share.tokenHash,
        created_at: share.createdAt,
        expires_at: share.expiresAt
      };
      this.#shares.insert({ ...row, createdBy: share.createdBy });
      if (share.expiresAt !== null) {
        await this.schedule(new Date(share.expiresAt), "expireShare", { roomId, shareId: share.id });
      }
      return { ...row, created_by: JSON.stringify(share.createdBy) };
    });
  }

  listShares(roomId: string): Promise<RpcResult<ShareRow[]>> {
    return asResult(() => {
      this.#requireRow(roomId);
      return this.#shares.active(roomId, Date.now());
    });
  }

  /** Deletes the link at once, then closes every socket opened with it. */
  revokeShare(roomId: string, shareId: string): Promise<RpcResult<void>> {
    return asResult(async () => {
      this.#requireRow(roomId);
      if (!this.#shares.delete(roomId, shareId)) {
        throw new AppError("not_found:share", 404, `No active share link "${shareId.slice(0, 64)}" on this room.`);
      }
      await this.#closeViewers(roomId, shareId);
    });
  }

  /** What a viewer holding a valid token may see; 404 for a revoked, expired or mismatched one. */
  openShare(shareId: string, roomId: string, tokenHash: string): Promise<RpcResult<ShareView>> {
    return asResult(() => {
      const share = this.#liveShare(shareId, roomId);
      const room = share && share.token_hash === tokenHash ? this.#row(roomId) : undefined;
      if (!share || !room) throw shareGone();
      return { roomId, roomName: room.name, expiresAt: share.expires_at };
    });
  }

  /** The alarm set by createShare. */
  async expireShare(payload: { roomId: string; shareId: string }) {
    this.#shares.deleteExpired(Date.now());
    await this.#closeViewers(payload.roomId, payload.shareId);
  }

  #liveShare(shareId: string, roomId: string): ShareRow | null {
    const share = this.#shares.get(shareId);
    if (!share || share.room_id !== roomId) return null;
    if (share.expires_at !== null && share.expires_at <= Date.now()) return null;
    return share;
  }

  async #closeViewers(roomId: string, shareId: string) {
    if (!this.#row(roomId) || !this.dynamicAgents.has(ChatRoom, roomId)) return;
    const room = await this.dynamicAgents.get(ChatRoom, roomId);
    await room.closeViewers(shareId);
  }

  // ── Registry RPC (called by the REST routes) ──
  // Expected failures come back as values (see RpcResult), never as throws.

  createRoom(input: CreateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(() => {
      this.#admit(this.#createLimiter, this.#createAddressLimiter, caller, "new rooms");
      return this.#createRoom(input);
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

  // ── Export, import, fork (room side: agents/room/transfer.ts) ──

  exportRoom(id: string, format: "json" | "markdown"): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() => this.#inRoom(id, async (room) => unwrap(await room.exportRoom(format))));
  }

  /**
   * Every room as NDJSON, one room after another: each room streams its
   * own lines, so the workspace is never gathered in one place.
   */
  exportWorkspace(): ReadableStream<Uint8Array> {
    const ids = this.sql<{ id: string }>`SELECT id FROM rooms ORDER BY created_at, id`.map((r) => r.id);
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          for (;;) {
            if (!reader) {
              const id = ids.shift();
              if (id === undefined) return controller.close();
              if (!this.#row(id)) continue; // deleted meanwhile
              const room = await this.dynamicAgents.get(ChatRoom, id);
              reader = unwrap(await room.exportRoom("ndjson")).getReader();
            }
            const { done, value } = await reader.read();
            if (!done) return controller.enqueue(value);
            reader = null;
          }
        },
        cancel: async () => {
          await reader?.cancel();
        }
      },
      { highWaterMark: 1 }
    );
  }

  /**
   * All or nothing: every room of the file is made and filled before any
   * appears in the registry; if one fails, every room made so far is
   * deleted again.
   */
  importRooms(rooms: ImportedRoom[], caller: Caller): Promise<RpcResult<ImportResult>> {
    return asResult(async () => {
      this.#admit(this.#createLimiter, this.#createAddressLimiter, caller, "new rooms");
      this.#reserve(rooms.length);
      this.#creating += rooms.length;
      const made: Array<{ id: string; settings: RoomSettings }> = [];
      try {
        for (const imported of rooms) {
          const id = generateRoomId();
          made.push({ id, settings: imported.settings });
          const room = await this.dynamicAgents.get(ChatRoom, id);
          await room.initialize(imported.settings);
          // Personas first: their new ids go on the answers they wrote.
          const personaIds = new Map<string, PersonaRef>();
          for (const persona of imported.personas) {
            const created = unwrap(await room.createPersona(persona.body));
            personaIds.set(persona.id, { id: created.id, name: created.name });
          }
          // Earlier versions first, so the transcript's last message ends up the room's latest leaf.
          const versions = imported.versions.map((v) => ({
            ...v,
            message: withPersonaIds([v.message], personaIds)[0]
          }));
          for (let i = 0; i < versions.length; i += IMPORT_BATCH) {
            await room.importVersions(versions.slice(i, i + IMPORT_BATCH) as ExportedVersion[]);
          }
          const messages = withPersonaIds(imported.messages, personaIds);
          let after: string | null = null;
          for (let i = 0; i < messages.length; i += IMPORT_BATCH) {
            const batch = messages.slice(i, i + IMPORT_BATCH);
            await room.importMessages(batch as ChatMessage[], after);
            after = batch[batch.length - 1].id;
          }
        }
      } catch (error) {
        await this.#discard(made.map((m) => m.id));
        throw error;
      } finally {
        this.#creating -= rooms.length;
      }
      const result: ImportResult = { rooms: [] };
      for (const { id, settings } of made) {
        const { messageCount } = await this.#register(id, settings);
        result.rooms.push({ id, name: settings.name, messageCount });
      }
      return result;
    });
  }

  /**
   * A new room holding the history up to and including `messageId`. The
   * source streams its messages (NDJSON, a batch per pull) straight into
   * the new room, so a 100,000-message room is never in memory at once.
   */
  forkRoom(id: string, messageId: string, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      this.#admit(this.#createLimiter, this.#createAddressLimiter, caller, "new rooms");
      const sourceRow = this.#requireRow(id);
      const source = await this.dynamicAgents.get(ChatRoom, id);
      if (!(await source.hasMessage(messageId))) {
        throw new AppError("not_found:message", 404, `Message "${messageId}" is not in this room.`);
      }
      const { settings } = await source.describe();
      const forkSettings: RoomSettings = { ...settings, name: forkName(settings.name) };
      this.#reserve(1);
      this.#creating++;
      const newId = generateRoomId();
      try {
        const room = await this.dynamicAgents.get(ChatRoom, newId);
        await room.initialize(forkSettings);
        const stream = unwrap(await source.exportRoom("ndjson", messageId));
        await room.importStream(stream, { roomId: id, roomName: sourceRow.name, messageId });
      } catch (error) {
        await this.#discard([newId]);
        if (!this.#row(id)) throw roomNotFound(id);
        throw error;
      } finally {
        this.#creating--;
      }
      await this.#register(newId, forkSettings);
      return this.#getRoom(newId);
    });
  }

  /** Where a room came from (a fork's link back). */
  roomOrigin(id: string): Promise<RpcResult<RoomOrigin | null>> {
    return asResult(() => this.#inRoom(id, (room) => room.origin()));
  }

  #reserve(count: number) {
    const [{ n }] = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM rooms`;
    if (n + this.#creating + count > MAX_ROOMS_PER_WORKSPACE) {
      throw new AppError(
        "conflict:room_limit",
        409,
        `This workspace has ${n} of at most ${MAX_ROOMS_PER_WORKSPACE} rooms; ${count} more do not fit. Delete some first.`
      );
    }
  }

  async #discard(ids: string[]) {
    for (const id of ids) {
      await this.dynamicAgents
        .delete(ChatRoom, id)
        .catch((error: unknown) => console.warn(`[OverseerAgent] could not discard half-made room ${id}:`, error));
    }
  }

  /** Makes a filled room reachable: its registry row, then its own activity report. */
  async #register(id: string, settings: RoomSettings): Promise<{ messageCount: number }> {
    const now = Date.now();
    this.sql`INSERT INTO rooms (id, name, created_at, last_active_at, message_count, last_preview, activity_seq)
      VALUES (${id}, ${settings.name}, ${now}, ${now}, 0, NULL, 0)`;
    const row = this.#requireRow(id);
    this.#broadcast({ type: "room_upserted", room: toRoomSummary(row) });
    const room = await this.dynamicAgents.get(ChatRoom, id);
    const filled = await room.finishImport();
    // The room's own report is on its way; until it lands, the count keeps search from skipping the room as empty.
    this.sql`UPDATE rooms SET message_count = ${filled.messageCount} WHERE id = ${id} AND activity_seq = 0`;
    return filled;
  }

  /** Every version of a message's position (edits and regenerations keep what they replace). */
  messageVersions(id: string, messageId: string): Promise<RpcResult<MessageVersions>> {
    return asResult(() => this.#inRoom(id, async (room) => unwrap(await room.messageVersions(messageId))));
  }

  /**
   * Search across rooms: every room searches its own index, a bounded
   * number at a time, most recently active first, empty rooms not woken
   * (domain/search-plan.ts); rooms that have not answered by the deadline
   * are reported as missing rather than waited for.
   */
  async search(query: SearchQuery): Promise<SearchResponse> {
    const rows = query.room
      ? this.sql<SearchableRoom>`SELECT id, name, last_active_at, message_count FROM rooms WHERE id = ${query.room}`
      : this.sql<SearchableRoom>`SELECT id, name, last_active_at, message_count FROM rooms`;
    const plan = planRoomSearch(rows, query.rooms);
    const names = new Map(rows.map((row) => [row.id, row.name]));
    const outcome = await fanOut(
      plan.ask.map((row) => row.id),
      async (id) => (await this.dynamicAgents.get(ChatRoom, id)).searchMessages(query.q, query.limit),
      { concurrency: SEARCH_CONCURRENCY, deadlineMs: searchDeadlineMs(this.env) }
    );
    for (const { key, error } of outcome.failed) console.warn(`[OverseerAgent] search failed in room ${key}:`, error);
    const hits = outcome.results.flatMap(({ key, value }) =>
      value.map((hit) => ({ ...hit, roomId: key, roomName: names.get(key) ?? key }))
    );
    const missing = [...outcome.missed, ...outcome.failed.map((f) => f.key)];
    return {
      results: rankHits(hits, query.limit),
      partial: missing.length > 0,
      roomsSearched: plan.ask.length + plan.empty.length,
      missingCount: missing.length,
      missingRooms: missing.map((id) => ({ roomId: id, roomName: names.get(id) ?? id }))
    };
  }

  sendMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<SendMessageResult>> {
    return asResult(() => {
      this.#admit(this.#sendLimiter, this.#sendAddressLimiter, caller, "messages");
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
      this.#admit(this.#sendLimiter, this.#sendAddressLimiter, caller, "messages");
      this.#requireSpace(id);
      return this.#inRoom(id, (room) => room.streamFromRest(body, authorOf(caller.identity), arrival));
    });
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

  // ── Traces: each room keeps its own (room/traces.ts) ──

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
    return this.sql<RoomRow>`SELECT * FROM rooms ORDER BY last_active_at DESC, id`.map(toRoomSummary);
  }

  /**
   * Creations between their cap check and their registry insert. Spawning
   * the facet awaits, and other creations run meanwhile: counting them
   * here, synchronously with the check, is what keeps concurrent creations
   * from overshooting the cap.
   */
  #creating = 0;

  async #createRoom(input: CreateRoomBody): Promise<RoomDetail> {
    const [{ n }] = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM rooms`;
    if (n + this.#creating >= MAX_ROOMS_PER_WORKSPACE) {
      throw new AppError(
        "conflict:room_limit",
        409,
        `This workspace already has ${MAX_ROOMS_PER_WORKSPACE} rooms, the most it can hold. Delete one first.`
      );
    }
    this.#creating++;
    try {
      return await this.#spawnRoom(input);
    } finally {
      this.#creating--;
    }
  }

  async #spawnRoom(input: CreateRoomBody): Promise<RoomDetail> {
    const now = Date.now();
    const row: RoomRow = {
      id: generateRoomId(),
      name: input.name,
      created_at: now,
      last_active_at: now,
      message_count: 0,
      last_preview: null,
      activity_seq: 0
    };
    const settings: RoomSettings = {
      name: input.name,
      systemPrompt: input.systemPrompt ?? "",
      model: input.model ?? null,
      temperature: input.temperature ?? null
    };
    // Spawn and initialise the facet first: the registry row is what makes
    // the room reachable, so it must not appear before the room can answer.
    const room = await this.dynamicAgents.get(ChatRoom, row.id);
    const state = await room.initialize(settings);
    this.sql`INSERT INTO rooms (id, name, created_at, last_active_at, message_count, last_preview, activity_seq)
      VALUES (${row.id}, ${row.name}, ${row.created_at}, ${row.last_active_at}, 0, NULL, 0)`;
    const summary = toRoomSummary(row);
    this.#broadcast({ type: "room_upserted", room: summary });
    return {
      ...summary,
      settings: state.settings,
      usage: state.usage,
      activeModel: state.activeModel,
      offline: state.offline
    };
  }

  async #getRoom(id: string): Promise<RoomDetail> {
    const row = this.#requireRow(id);
    const room = await this.dynamicAgents.get(ChatRoom, id);
    const state = await room.describe();
    return {
      ...toRoomSummary(row),
      settings: state.settings,
      usage: state.usage,
      activeModel: state.activeModel,
      offline: state.offline
    };
  }

  async #updateRoom(id: string, patch: UpdateRoomBody): Promise<RoomDetail> {
    this.#requireRow(id);
    const room = await this.dynamicAgents.get(ChatRoom, id);
    const state = await room.updateSettings(patch);
    // The room may have been deleted while we waited on it.
    const row = this.#requireRow(id);
    if (patch.name !== undefined && patch.name !== row.name) {
      this.sql`UPDATE rooms SET name = ${patch.name} WHERE id = ${id}`;
      row.name = patch.name;
      this.#broadcast({ type: "room_upserted", room: toRoomSummary(row) });
    }
    return {
      ...toRoomSummary(row),
      settings: state.settings,
      usage: state.usage,
      activeModel: state.activeModel,
      offline: state.offline
    };
  }

  /**
   * Registry row first, so the gate refuses reconnects at once; then the
   * facet, which aborts a running answer, closes the room's sockets and
   * wipes its storage.
   */
  async #deleteRoom(id: string): Promise<void> {
    this.#requireRow(id);
    this.sql`DELETE FROM rooms WHERE id = ${id}`;
    this.#live.forget(id);
    this.#shares.deleteRoom(id);
    this.#reads.forgetRoom(id);
    this.#broadcast({ type: "room_deleted", id });
    await this.dynamicAgents.delete(ChatRoom, id);
  }

  // ── Introspection and budgets (answered from the overseer's own SQLite: no room wakes) ──

  workspaceStatus(): WorkspaceStatus {
    return this.#live.status(this.name, {
      roomListSockets: [...this.getConnections()].length,
      dailyTokenBudget: this.#dailyBudget()
    });
  }

  workspaceSettings(): WorkspaceSettings {
    return { dailyTokenBudget: this.#dailyBudget() };
  }

  updateWorkspaceSettings(patch: UpdateWorkspaceSettingsBody): WorkspaceSettings {
    if (patch.dailyTokenBudget !== undefined) this.#settings.set("dailyTokenBudget", patch.dailyTokenBudget);
    return this.workspaceSettings();
  }

  /** A room asks before each turn: the workspace's daily budget and what its rooms reported using today. */
  workspaceBudget(): { dailyTokenBudget: number; tokensToday: number } {
    return { dailyTokenBudget: this.#dailyBudget(), tokensToday: this.#live.tokensToday() };
  }

  #dailyBudget(): number {
    return this.#settings.get("dailyTokenBudget") ?? budgetDefaults(this.env).workspace;
  }

  /** Called by a room after its transcript changed. Stale reports are dropped. */
  recordRoomActivity(id: string, activity: RoomActivity): void {
    const row = this.#row(id);
    if (!row) return; // deleted while the report was in flight
    const next = applyActivity(row, activity);
    if (!next) return;
    this.sql`UPDATE rooms SET message_count = ${next.message_count}, last_preview = ${next.last_preview},
      last_active_at = ${next.last_active_at}, activity_seq = ${next.activity_seq} WHERE id = ${id}`;
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

  #admit(byIdentity: RateLimiter, byAddress: RateLimiter, caller: Caller, what: string) {
    const keys = limitKeys(caller);
    const now = Date.now();
    for (const admission of [byIdentity.take(keys.identity, now), byAddress.take(keys.address, now)]) {
      if (!admission.ok) throw rateLimited(admission.retryAfterMs, what);
    }
  }

  #row(id: string): RoomRow | undefined {
    return this.sql<RoomRow>`SELECT * FROM rooms WHERE id = ${id}`[0];
  }

  #requireRow(id: string): RoomRow {
    const row = this.#row(id);
    if (!row) throw roomNotFound(id);
    return row;
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

  #broadcast(frame: OverseerFrame) {
    this.broadcast(JSON.stringify(frame));
  }
}
