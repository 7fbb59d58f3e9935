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
import { ApiTokenTable } from "@/server/agents/overseer/api-tokens";
import { WorkspaceBudgetFigures } from "@/server/agents/overseer/budget-figures";
import { deliverBroadcast, framesOf } from "@/server/agents/overseer/frame-batches";
import { InviteTable } from "@/server/agents/overseer/invites";
import { LiveStatusTable } from "@/server/agents/overseer/live-status";
import { PeopleTable } from "@/server/agents/overseer/people";
import { ReadMarksTable, readerTag } from "@/server/agents/overseer/read-marks";
import { RoomRegistry } from "@/server/agents/overseer/registry";
import { RoomMembersTable } from "@/server/agents/overseer/room-members";
import { WorkspaceSettingsTable } from "@/server/agents/overseer/settings";
import { ShareLinks, ShareTable } from "@/server/agents/overseer/share-links";
import { SocketRoutes } from "@/server/agents/overseer/socket-routes";
import { rememberSocketTargets } from "@/server/agents/overseer/socket-targets";
import { WorkspaceAccess } from "@/server/agents/overseer/workspace-access";
import { WorkspaceFiles } from "@/server/agents/overseer/workspace-files";
import { searchRooms } from "@/server/agents/overseer/workspace-search";
import { WorkspaceTransfer } from "@/server/agents/overseer/workspace-transfer";
import { AppError, asResult, type RpcResult, roomNotFound, unwrap } from "@/server/app-error";
import type {
  InviteRow,
  NewApiToken,
  NewInvite,
  NewShare,
  OverseerRestApi,
  OverseerRoomApi,
  OverseerTokenApi,
  ShareRow
} from "@/server/contracts/overseer-api";
import type { MemoryCall, MemoryCallResults, RestArrival } from "@/server/contracts/room-api";
import { accessConfig } from "@/server/domain/access/access-jwt";
import {
  CALLER_HEADER,
  type Caller,
  callerFromRequest,
  callerOf,
  decodeCaller,
  rememberCaller
} from "@/server/domain/access/caller";
import type { WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import { fileKey, fileLimits, type UploadTicket } from "@/server/domain/files/file-limits";
import type { PassageBatch } from "@/server/domain/files/text-passages";
import type { InviteClaims } from "@/server/domain/roles/invite-token";
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
import {
  ACCESS_REVOKED_CODE,
  type AcceptedInvite,
  type ApiTokenInfo,
  type InviteView,
  type MemberList,
  type Person,
  type WorkspaceAccess as WorkspaceAccessInfo
} from "@/shared/members";
import type { RoomAction, RoomVisibility, WorkspaceRole } from "@/shared/permissions";
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

export class OverseerAgent extends Agent<Env> implements OverseerRestApi, OverseerRoomApi, OverseerTokenApi {
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
    this.#access = new WorkspaceAccess(
      {
        people: new PeopleTable(ctx.storage.sql),
        members: new RoomMembersTable(ctx.storage.sql),
        invites: new InviteTable(ctx.storage.sql),
        tokens: new ApiTokenTable(ctx.storage.sql)
      },
      { ...env, openServer: !env.ACCESS_TOKEN && !accessConfig(env) },
      () => this.name,
      {
        room: (roomId) => this.#row(roomId),
        accessChanged: (roomId, identityId) => this.#accessChanged(roomId, identityId)
      }
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
      registered: (row, owner, visibility) => {
        this.#access.roomCreated(row.id, owner, visibility);
        this.#announce(row);
      },
      visibility: (id) => this.#access.visibility(id)
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
  /** Who may do what: people, roles, room members, invitations, API tokens (overseer/workspace-access.ts). */
  #access: WorkspaceAccess;
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
    this.#send(connection, { type: "rooms", rooms: caller ? this.#roomsFor(caller) : [] });
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
    const caller = decodeCaller(request.headers.get(CALLER_HEADER));
    if (caller?.viewerOf !== undefined) {
      if (!this.#shares.live(caller.viewerOf, child.name)) {
        return new Response("This share link is no longer valid.", { status: 404 });
      }
      return;
    }
    // Anyone else: only a room that exists for them. A private room they are
    // not in is refused exactly like an unknown one (closed with 4404).
    const refusal = caller ? asRefusal(() => this.#access.requireRoom(caller, child.name, "room.read")) : null;
    if (!caller || refusal) return new Response(`Room "${child.name}" not found`, { status: 404 });
  }

  // ── Share links (tokens are signed by the Worker, routes/shares-routes.ts; rows live in overseer/share-links.ts) ──

  /** Records a link the Worker signed. An expiring one is ended on time by an alarm, closing its viewers. */
  createShare(roomId: string, share: NewShare, caller: Caller): Promise<RpcResult<ShareRow>> {
    return asResult(() => {
      this.#access.requireRoom(caller, roomId, "room.share");
      return this.#shares.create(roomId, share);
    });
  }

  listShares(roomId: string, caller: Caller): Promise<RpcResult<ShareRow[]>> {
    return asResult(() => {
      this.#access.requireRoom(caller, roomId, "room.share");
      return this.#shares.list(roomId);
    });
  }

  /** Deletes the link at once, then closes every socket opened with it. */
  revokeShare(roomId: string, shareId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => {
      this.#access.requireRoom(caller, roomId, "room.share");
      return this.#shares.revoke(roomId, shareId);
    });
  }

  /** What a viewer holding a valid token may see; 404 for a revoked, expired or mismatched one. */
  openShare(shareId: string, roomId: string, tokenHash: string): Promise<RpcResult<ShareView>> {
    return asResult(() => this.#shares.open(shareId, roomId, tokenHash));
  }

  /** A page of history for a viewer holding a valid token (the link is the right to read). */
  sharedMessages(
    share: { shareId: string; roomId: string; tokenHash: string },
    query: { before?: string; limit: number }
  ): Promise<RpcResult<MessagePage>> {
    return asResult(() => {
      this.#shares.open(share.shareId, share.roomId, share.tokenHash);
      return this.#inRoom(share.roomId, (room) => room.listMessages(query));
    });
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
  // Every method takes the caller and asks #access first (a room method
  // through #inRoom, which names the action): who may do what is decided
  // before anything is done.

  createRoom(input: CreateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      const visibility = input.visibility ?? "workspace";
      this.#access.requireCreate(caller, visibility);
      this.#admission.admitNewRooms(caller);
      const release = this.#admission.holdRooms(1);
      try {
        return await this.#spawnRoom(input, caller, visibility);
      } finally {
        release();
      }
    });
  }

  getRoom(id: string, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      this.#access.requireRoom(caller, id, "room.read");
      return { ...(await this.#getRoom(id)), access: this.#access.roomAccess(caller, id) };
    });
  }

  updateRoom(id: string, patch: UpdateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      // Every part of the patch is checked before any part is applied.
      for (const action of patchActions(patch)) this.#access.requireRoom(caller, id, action);
      if (patch.visibility !== undefined) await this.#access.setVisibility(caller, id, patch.visibility);
      const { visibility: _, ...settings } = patch;
      const detail = Object.keys(settings).length > 0 ? await this.#updateRoom(id, settings) : await this.#getRoom(id);
      return { ...detail, access: this.#access.roomAccess(caller, id) };
    });
  }

  deleteRoom(id: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => {
      this.#access.requireRoom(caller, id, "room.delete");
      return this.#deleteRoom(id);
    });
  }

  listMessages(id: string, query: MessagesQuery, caller: Caller): Promise<RpcResult<MessagePage>> {
    return asResult(() =>
      this.#inRoom(id, caller, "room.read", async (room) =>
        query.around || query.after ? unwrap(await room.listMessagesNear(query)) : room.listMessages(query)
      )
    );
  }

  // ── Members, invitations, people, API tokens (overseer/workspace-access.ts decides) ──

  listMembers(id: string, caller: Caller): Promise<RpcResult<MemberList>> {
    return asResult(() => this.#access.listMembers(caller, id));
  }

  /** Removes someone (owner, admins) or the caller itself (leaving); their sockets close at once. */
  removeMember(id: string, userId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => this.#access.removeMember(caller, id, userId));
  }

  transferOwnership(id: string, userId: string, caller: Caller): Promise<RpcResult<MemberList>> {
    return asResult(() => {
      const members = this.#access.transferOwnership(caller, id, userId);
      this.#announce(this.#requireRow(id));
      return members;
    });
  }

  /** Records an invitation the Worker signed. */
  createInvite(id: string, invite: NewInvite, caller: Caller): Promise<RpcResult<InviteRow>> {
    return asResult(() => this.#access.createInvite(caller, id, invite));
  }

  listInvites(id: string, caller: Caller): Promise<RpcResult<InviteRow[]>> {
    return asResult(() => this.#access.listInvites(caller, id));
  }

  revokeInvite(id: string, inviteId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => this.#access.revokeInvite(caller, id, inviteId));
  }

  viewInvite(claims: InviteClaims, tokenHash: string, caller: Caller): Promise<RpcResult<InviteView>> {
    return asResult(() => this.#access.viewInvite(caller, claims, tokenHash));
  }

  acceptInvite(claims: InviteClaims, tokenHash: string, caller: Caller): Promise<RpcResult<AcceptedInvite>> {
    return asResult(async () => {
      const row = await this.#access.acceptInvite(caller, claims, tokenHash);
      return { workspace: this.name, roomId: row.id, roomName: row.name };
    });
  }

  me(caller: Caller): Promise<RpcResult<WorkspaceAccessInfo>> {
    return asResult(() => this.#access.me(caller));
  }

  listPeople(caller: Caller): Promise<RpcResult<Person[]>> {
    return asResult(() => this.#access.listPeople(caller));
  }

  setRole(userId: string, role: WorkspaceRole, caller: Caller): Promise<RpcResult<Person[]>> {
    return asResult(() => this.#access.setRole(caller, userId, role));
  }

  /** Records a token the Worker made (it keeps only the hash); the secret never reaches this object. */
  createApiToken(input: NewApiToken, caller: Caller): Promise<RpcResult<ApiTokenInfo>> {
    return asResult(() => this.#access.createToken(caller, input));
  }

  listApiTokens(caller: Caller): Promise<RpcResult<ApiTokenInfo[]>> {
    return asResult(() => this.#access.listTokens(caller));
  }

  revokeApiToken(tokenId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => this.#access.revokeToken(caller, tokenId));
  }

  /** The Worker's check of a presented API token (http/access.ts): its identity, or null. */
  verifyApiToken(tokenId: string, tokenHash: string): ApiTokenInfo | null {
    return this.#access.verifyToken(tokenId, tokenHash);
  }

  // ── Export, import, fork (room side: agents/room/room-transfer.ts) ──

  exportRoom(id: string, format: "json" | "markdown", caller: Caller): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() =>
      this.#inRoom(id, caller, "room.export", async (room) => unwrap(await room.exportRoom(format)))
    );
  }

  /** Every room the caller may see, as NDJSON, one room after another (overseer/workspace-transfer.ts). */
  exportWorkspace(caller: Caller): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() => {
      this.#access.requireWorkspace(caller, "workspace.read");
      return this.#transfer.exportWorkspace(this.#access.visibleFilter(caller));
    });
  }

  /** All or nothing: no room of the file appears until every one is made and filled (overseer/workspace-transfer.ts). */
  importRooms(rooms: ImportedRoom[], caller: Caller): Promise<RpcResult<ImportResult>> {
    return asResult(() => {
      this.#access.requireWorkspace(caller, "room.import");
      return this.#transfer.importRooms(rooms, caller);
    });
  }

  /**
   * A new room holding the history up to and including `messageId`
   * (overseer/workspace-transfer.ts), owned by the caller. A fork of a private room
   * is private: what was said there stays among its members.
   */
  forkRoom(id: string, messageId: string, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      this.#access.requireRoom(caller, id, "room.fork");
      this.#access.requireCreate(caller, this.#access.visibility(id));
      const forked = await this.#transfer.forkRoom(id, messageId, caller);
      return { ...(await this.#getRoom(forked)), access: this.#access.roomAccess(caller, forked) };
    });
  }

  /** Where a room came from (a fork's link back). */
  roomOrigin(id: string, caller: Caller): Promise<RpcResult<RoomOrigin | null>> {
    return asResult(() => this.#inRoom(id, caller, "room.read", (room) => room.origin()));
  }

  /** A room's memory: pins, summaries, what an answer saw (room/room-memory.ts). */
  roomMemory(id: string, call: MemoryCall, caller: Caller): Promise<RpcResult<MemoryCallResults[MemoryCall["op"]]>> {
    const action: RoomAction =
      call.op === "view" || call.op === "context"
        ? "room.read"
        : call.op === "rebuild"
          ? "room.rebuild_memory"
          : "room.pin";
    return asResult(() =>
      this.#inRoom(id, caller, action, async (room) => unwrap(await room.memoryCall(call, authorOf(caller.identity))))
    );
  }

  /** Every version of a message's position (edits and regenerations keep what they replace). */
  messageVersions(id: string, messageId: string, caller: Caller): Promise<RpcResult<MessageVersions>> {
    return asResult(() =>
      this.#inRoom(id, caller, "room.read", async (room) => unwrap(await room.messageVersions(messageId)))
    );
  }

  /**
   * Search across the rooms the caller may see: each room searches its own
   * index; late rooms are reported, not waited for (overseer/workspace-search.ts).
   */
  search(query: SearchQuery, caller: Caller): Promise<RpcResult<SearchResponse>> {
    return asResult(() => {
      this.#access.requireWorkspace(caller, "workspace.read");
      const visible = this.#access.visibleFilter(caller);
      return searchRooms(query, {
        rooms: (only) => this.#registry.searchable(only).filter((row) => visible(row.id)),
        searchRoom: async (id, q, limit) => (await this.dynamicAgents.get(ChatRoom, id)).searchMessages(q, limit),
        deadlineMs: searchDeadlineMs(this.env)
      });
    });
  }

  sendMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<SendMessageResult>> {
    return asResult(() => {
      this.#access.requireRoom(caller, id, "room.talk");
      this.#admission.admitMessages(caller);
      this.#requireSpace(id);
      return this.#inRoom(id, caller, "room.talk", async (room) => {
        if (body.files?.length) unwrap(await room.fileRefs(body.files));
        return room.sendFromRest(body, authorOf(caller.identity), arrival);
      });
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
      this.#access.requireRoom(caller, id, "room.talk");
      this.#admission.admitMessages(caller);
      this.#requireSpace(id);
      return this.#inRoom(id, caller, "room.talk", async (room) => {
        if (body.files?.length) unwrap(await room.fileRefs(body.files));
        return room.streamFromRest(body, authorOf(caller.identity), arrival);
      });
    });
  }

  // ── Files: bytes go Worker ↔ R2 directly; here only admission, records and purges (overseer/workspace-files.ts) ──

  /** Before an upload reads a byte: the room exists, the caller may upload, and something fits. */
  admitUpload(id: string, caller: Caller): Promise<RpcResult<UploadTicket>> {
    return asResult(() => {
      this.#access.requireRoom(caller, id, "room.upload");
      return this.#files.admit(this.name, id, caller);
    });
  }

  /**
   * After the Worker stored an upload's bytes: the room records it. Fails
   * (and the Worker deletes the bytes) if the room went or filled up meanwhile.
   */
  registerFile(id: string, file: NewFile, caller: Caller): Promise<RpcResult<RoomFile>> {
    return asResult(async () => {
      // Asked again: the uploader may have lost the room while the bytes streamed.
      this.#access.requireRoom(caller, id, "room.upload");
      this.#files.checkFits(id, file.size);
      const stored = await this.#inRoom(id, caller, "room.upload", (room) => room.addFile(file));
      this.#files.added(id, file.size);
      return stored;
    });
  }

  listFiles(id: string, query: FilesQuery, caller: Caller): Promise<RpcResult<FilePage>> {
    return asResult(() => this.#inRoom(id, caller, "room.read", async (room) => unwrap(await room.listFiles(query))));
  }

  /** A file's record and where its bytes are. */
  getFile(id: string, fileId: string, caller: Caller): Promise<RpcResult<{ file: RoomFile; key: string }>> {
    return asResult(() =>
      this.#inRoom(id, caller, "room.read", async (room) => ({
        file: unwrap(await room.getFile(fileId)),
        key: fileKey(this.name, id, fileId)
      }))
    );
  }

  /** The record goes at once (nobody reaches the file after this answers), then its bytes. */
  deleteFile(id: string, fileId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(async () => {
      // Your own file with the right to upload; anyone's with the right to manage the room's files.
      const anyone = this.#access.may(caller, id, "room.files");
      const file = unwrap(
        await this.#inRoom(id, caller, "room.upload", (room) =>
          room.deleteFile(fileId, authorOf(caller.identity), anyone)
        )
      );
      this.#files.removed(id, file.size, fileKey(this.name, id, fileId));
    });
  }

  /**
   * Passages of a file being indexed, from the Worker's extraction, to its
   * room (text only). No caller: the Worker's own background work on a file
   * it just stored for one; the room checks the file is still there.
   */
  addFilePassages(id: string, fileId: string, batch: PassageBatch): Promise<RpcResult<boolean>> {
    return asResult(() => this.#inRoom(id, (room) => room.addFilePassages(fileId, batch)));
  }

  failFileIndex(id: string, fileId: string, reason: string): Promise<RpcResult<void>> {
    return asResult(() => this.#inRoom(id, (room) => room.failFileIndex(fileId, reason)));
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

  listPersonas(id: string, caller: Caller): Promise<RpcResult<Persona[]>> {
    return asResult(() => this.#inRoom(id, caller, "room.read", (room) => room.listPersonas()));
  }

  createPersona(id: string, body: CreatePersonaBody, caller: Caller): Promise<RpcResult<Persona>> {
    return asResult(async () =>
      unwrap(await this.#inRoom(id, caller, "room.personas", (room) => room.createPersona(body)))
    );
  }

  updatePersona(id: string, personaId: string, patch: UpdatePersonaBody, caller: Caller): Promise<RpcResult<Persona>> {
    return asResult(async () =>
      unwrap(await this.#inRoom(id, caller, "room.personas", (room) => room.updatePersona(personaId, patch)))
    );
  }

  deletePersona(id: string, personaId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(async () =>
      unwrap(await this.#inRoom(id, caller, "room.personas", (room) => room.deletePersona(personaId)))
    );
  }

  // ── Traces: each room keeps its own (room/trace-store.ts) ──

  describeAgents(id: string, caller: Caller): Promise<RpcResult<AgentTree>> {
    return asResult(() => this.#inRoom(id, caller, "room.read", (room) => room.describeAgents()));
  }

  listTraces(id: string, limit: number, caller: Caller): Promise<RpcResult<TraceList>> {
    return asResult(() => this.#inRoom(id, caller, "room.read", (room) => room.listTraces(limit)));
  }

  getTrace(id: string, traceId: string, caller: Caller): Promise<RpcResult<TraceDetail>> {
    return asResult(() =>
      this.#inRoom(id, caller, "room.read", async (room) => {
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

  /** The rooms the caller may see, most recently active first. */
  listRooms(caller: Caller): Promise<RpcResult<RoomSummary[]>> {
    return asResult(() => {
      this.#access.requireWorkspace(caller, "workspace.read");
      return this.#roomsFor(caller);
    });
  }

  #roomsFor(caller: Caller): RoomSummary[] {
    const visible = this.#access.visibleFilter(caller);
    return this.#registry
      .list()
      .filter((row) => visible(row.id))
      .map((row) => this.#summary(row));
  }

  #summary(row: RoomRow): RoomSummary {
    return toRoomSummary(row, this.#access.visibility(row.id));
  }

  async #spawnRoom(input: CreateRoomBody, caller: Caller, visibility: RoomVisibility): Promise<RoomDetail> {
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
    this.#access.roomCreated(id, caller, visibility);
    this.#announce(row);
    return { ...toRoomDetail(row, state, visibility), access: this.#access.roomAccess(caller, id) };
  }

  async #getRoom(id: string): Promise<RoomDetail> {
    const row = this.#requireRow(id);
    const room = await this.dynamicAgents.get(ChatRoom, id);
    return toRoomDetail(row, await room.describe(), this.#access.visibility(id));
  }

  async #updateRoom(id: string, patch: Omit<UpdateRoomBody, "visibility">): Promise<RoomDetail> {
    this.#requireRow(id);
    const room = await this.dynamicAgents.get(ChatRoom, id);
    const state = await room.updateSettings(patch);
    // The room may have been deleted while we waited on it.
    const row = this.#requireRow(id);
    if (patch.name !== undefined && patch.name !== row.name) {
      this.#registry.rename(id, patch.name);
      row.name = patch.name;
      this.#announce(row);
    }
    return toRoomDetail(row, state, this.#access.visibility(id));
  }

  /**
   * Registry row first, so the gate refuses reconnects at once; then the
   * facet, which aborts a running answer, closes the room's sockets and
   * wipes its storage.
   */
  async #deleteRoom(id: string): Promise<void> {
    this.#requireRow(id);
    // Who is told: only those who could see it (a private room's id is no one else's business).
    const audience = this.#listAudience(id);
    this.#registry.delete(id);
    this.#live.forget(id);
    this.#budget.forget(id);
    this.#shares.deleteRoom(id);
    this.#reads.forgetRoom(id);
    this.#files.roomDeleted(this.name, id);
    this.#access.roomDeleted(id);
    const frame = JSON.stringify({ type: "room_deleted", id } satisfies OverseerFrame);
    for (const connection of audience) connection.send(frame);
    await this.dynamicAgents.delete(ChatRoom, id);
  }

  // ── Who sees a room: the room list's fan-out and access changes ──

  /** The room-list sockets whose caller may see this room. */
  #listAudience(roomId: string, identityId?: string): Connection[] {
    const sockets = [...this.getConnections(identityId === undefined ? LIST_TAG : readerTag(identityId))];
    if (this.#access.visibility(roomId) === "workspace") return sockets;
    return sockets.filter((connection) => {
      const caller = callerOf(connection);
      return caller !== null && this.#access.canSee(caller, roomId);
    });
  }

  /** A room appeared or changed: to the list sockets of everyone who may see it. */
  #announce(row: RoomRow) {
    const frame = JSON.stringify({ type: "room_upserted", room: this.#summary(row) } satisfies OverseerFrame);
    for (const connection of this.#listAudience(row.id)) connection.send(frame);
  }

  /**
   * Who may see a room changed (a member removed or added, its visibility,
   * someone's role): every room list concerned gets the room or loses it,
   * and room sockets whose caller may no longer see it close at once with
   * ACCESS_REVOKED_CODE (the client says why and stops reconnecting; the
   * gate would refuse it anyway). `identityId`: only that person changed.
   */
  async #accessChanged(roomId: string, identityId?: string) {
    const row = this.#row(roomId);
    if (!row) return;
    const upsert = JSON.stringify({ type: "room_upserted", room: this.#summary(row) } satisfies OverseerFrame);
    const gone = JSON.stringify({ type: "room_deleted", id: roomId } satisfies OverseerFrame);
    const lost = new Set<string>();
    for (const connection of this.getConnections(identityId === undefined ? LIST_TAG : readerTag(identityId))) {
      const caller = callerOf(connection);
      const sees = caller !== null && this.#access.canSee(caller, roomId);
      connection.send(sees ? upsert : gone);
      if (caller && !sees) lost.add(caller.identity.id);
    }
    if (identityId !== undefined && !this.#access.canSee(this.#callerLike(identityId), roomId)) lost.add(identityId);
    for (const id of lost) this.#reads.forget(id, roomId);
    if (!this.dynamicAgents.has(ChatRoom, roomId)) return;
    const room = await this.dynamicAgents.get(ChatRoom, roomId);
    const connected = await room.connectedCallers();
    const refused = connected.filter((caller) => !this.#access.canSee(caller, roomId)).map((c) => c.identity.id);
    if (refused.length > 0) {
      const reason =
        this.#access.visibility(roomId) === "private"
          ? "You are no longer a member of this private room."
          : "You no longer have access to this room.";
      await room.closeSocketsOf(refused, ACCESS_REVOKED_CODE, reason);
    }
  }

  /** A stand-in caller for an identity with no socket open: its stored role and memberships decide. */
  #callerLike(identityId: string): Caller {
    return { identity: { id: identityId, name: identityId, kind: "user" }, address: "local" };
  }

  // ── Introspection and budgets (answered from the overseer's own SQLite: no room wakes) ──

  /** The workspace's status over the rooms the caller may see (counts never mention the others). */
  workspaceStatus(caller: Caller): Promise<RpcResult<WorkspaceStatus>> {
    return asResult(() => {
      this.#access.requireWorkspace(caller, "workspace.read");
      return this.#live.status(
        this.name,
        { roomListSockets: [...this.getConnections(LIST_TAG)].length, dailyTokenBudget: this.#dailyBudget() },
        this.#access.visibleFilter(caller)
      );
    });
  }

  workspaceSettings(caller: Caller): Promise<RpcResult<WorkspaceSettings>> {
    return asResult(() => {
      this.#access.requireWorkspace(caller, "workspace.read");
      return { dailyTokenBudget: this.#dailyBudget() };
    });
  }

  /** Answers once every room holding a copy of the budget has dropped it: the next turn anywhere sees the change. */
  updateWorkspaceSettings(patch: UpdateWorkspaceSettingsBody, caller: Caller): Promise<RpcResult<WorkspaceSettings>> {
    return asResult(async () => {
      this.#access.requireWorkspace(caller, "workspace.settings");
      if (patch.dailyTokenBudget !== undefined) await this.#budget.setDaily(patch.dailyTokenBudget);
      return { dailyTokenBudget: this.#dailyBudget() };
    });
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
    this.#announce(next);
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
   * Runs a call on a registered room, once the caller may do `action` there
   * (404 for a room that does not exist for them, 403 saying who can). A
   * room deleted mid-call fails with 404, not with whatever the aborted
   * facet threw. Without a caller: only for share viewers, checked already.
   */
  async #inRoom<T>(
    id: string,
    ...args:
      | [caller: Caller, action: RoomAction, call: (room: DynamicAgentStub<ChatRoom>) => Promise<T>]
      | [call: (room: DynamicAgentStub<ChatRoom>) => Promise<T>]
  ): Promise<T> {
    const call = args.length === 3 ? args[2] : args[0];
    if (args.length === 3) this.#access.requireRoom(args[0], id, args[1]);
    else this.#requireRow(id);
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
}

/** The room actions a settings patch needs: every one is checked before any part is applied. */
function patchActions(patch: UpdateRoomBody): RoomAction[] {
  const actions = new Set<RoomAction>();
  for (const key of Object.keys(patch) as Array<keyof UpdateRoomBody>) {
    if (patch[key] === undefined) continue;
    if (key === "name") actions.add("room.rename");
    else if (key === "dailyTokenBudget") actions.add("room.budget");
    else if (key === "visibility") actions.add("room.visibility");
    else actions.add("room.settings");
  }
  return [...actions];
}

/** The refusal an access check throws, or null when it passes. */
function asRefusal(check: () => unknown): AppError | null {
  try {
    check();
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}
