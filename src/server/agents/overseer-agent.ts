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
 * **Who may is asked first.** Every RPC takes the caller and asks the
 * workspace's access rules (overseer/workspace-access.ts) before doing
 * anything; a room method names its action when it calls the room.
 *
 * This file is the RPC surface of rooms, messages, files, transfers and
 * budgets, each method a few lines handing over to a job. It extends
 * overseer-access.ts (members, invitations, people, roles, API tokens,
 * share links), which extends overseer-core.ts (the gate, the sockets, the
 * alarms, the jobs made): one Durable Object in three files, each read in
 * one sitting. The jobs are made and wired in overseer/workspace-jobs.ts: the registry,
 * access, the rooms as facets (workspace-rooms.ts), the room lists
 * (room-lists.ts), what rooms report (room-reports.ts), admission,
 * transfers, search, share links, files, read marks, live status and
 * settings. RPC failures come back as values (RpcResult,
 * src/server/app-error.ts), never as throws. The RPC surface is declared in
 * contracts/overseer-api.ts: a new method goes there first.
 */
import type { WorkspaceJobs } from "@/server/agents/overseer/workspace-jobs";
import { asResult, type RpcResult, unwrap } from "@/server/app-error";
import type { OverseerRestApi, OverseerRoomApi, OverseerTokenApi } from "@/server/contracts/overseer-api";
import type { Remote } from "@/server/contracts/remote";
import type {
  ChatRoomApi,
  MemoryCall,
  MemoryCallResults,
  MessageCall,
  MessageCallResults,
  RestArrival,
  RoomToolsCall,
  ToolsCallResults
} from "@/server/contracts/room-api";
import type { Caller } from "@/server/domain/access/caller";
import type { WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import { roomPrefix, type UploadTicket } from "@/server/domain/files/file-limits";
import type { PassageBatch } from "@/server/domain/files/text-passages";
import type { MentionReport } from "@/server/domain/notifications/mention-fragments";
import type { PendingRead } from "@/server/domain/rooms/read-positions";
import type { RoomActivity } from "@/server/domain/rooms/room-rows";
import { generateRoomId } from "@/server/domain/rooms/room-rows";
import { LIST_TAG } from "@/server/domain/sockets/socket-tags";
import type { WorkspaceMcpServer } from "@/server/domain/tools/workspace-mcp-sync";
import { traceNotFound } from "@/server/domain/tracing/trace-spans";
import type { ImportedRoom } from "@/server/domain/transfer/imported-room";
import type { ArchivedFiles, ZipImportTicket } from "@/server/domain/transfer/zip-import";
import type { UpdateWorkspaceSettingsBody, WorkspaceSettings } from "@/shared/budgets";
import type { CatchUp, CatchUpBody } from "@/shared/catch-up";
import type { FileCopy, FilePage, FilesQuery, NewFile, RoomFile } from "@/shared/files";
import { authorOf } from "@/shared/identity";
import type { AgentTree, WorkspaceStatus } from "@/shared/introspection";
import type { MarkNotificationsReadBody, NotificationList, RoomNotifications } from "@/shared/notifications";
import type { RoomAction } from "@/shared/permissions";
import type { CreatePersonaBody, Persona, UpdatePersonaBody } from "@/shared/personas";
import type {
  CreateRoomBody,
  MessagePage,
  MessagesQuery,
  MessageVersions,
  RoomDetail,
  RoomSummary,
  SendMessageBody,
  SendMessageResult,
  UpdateRoomBody
} from "@/shared/protocol";
import type { SearchQuery, SearchResponse } from "@/shared/search";
import type { TraceDetail, TraceList } from "@/shared/traces";
import type { ImportResult, RoomOrigin } from "@/shared/transfer";
import { ZIP_IMPORT_DEADLINE_MS } from "./overseer/open-writes";
import { OverseerAccess } from "./overseer-access";

export class OverseerAgent extends OverseerAccess implements OverseerRestApi, OverseerRoomApi, OverseerTokenApi {
  // ── Rooms (overseer/workspace-rooms.ts) ──
  // Expected failures come back as values (see RpcResult), never as throws.

  createRoom(input: CreateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      const visibility = input.visibility ?? "workspace";
      this.jobs.access.requireCreate(caller, visibility);
      await this.jobs.admission.admitNewRooms(caller);
      const release = this.jobs.admission.holdRooms(1);
      try {
        return await this.jobs.rooms.create(input, caller, visibility);
      } finally {
        release();
      }
    });
  }

  getRoom(id: string, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(async () => {
      this.jobs.access.requireRoom(caller, id, "room.read");
      return { ...(await this.jobs.rooms.get(id)), access: this.jobs.access.roomAccess(caller, id) };
    });
  }

  updateRoom(id: string, patch: UpdateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>> {
    return asResult(() => this.jobs.rooms.update(id, patch, caller));
  }

  deleteRoom(id: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => {
      this.jobs.access.requireRoom(caller, id, "room.delete");
      return this.jobs.rooms.delete(id);
    });
  }

  /** The rooms the caller may see, most recently active first. */
  listRooms(caller: Caller): Promise<RpcResult<RoomSummary[]>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "workspace.read");
      return this.jobs.lists.roomsFor(caller);
    });
  }

  listMessages(id: string, query: MessagesQuery, caller: Caller): Promise<RpcResult<MessagePage>> {
    return asResult(() =>
      this.#room(id, caller, "room.read", async (room) =>
        query.around || query.after ? unwrap(await room.listMessagesNear(query)) : room.listMessages(query)
      )
    );
  }

  /** Every version of a message's position (edits and regenerations keep what they replace). */
  messageVersions(id: string, messageId: string, caller: Caller): Promise<RpcResult<MessageVersions>> {
    return asResult(() =>
      this.#room(id, caller, "room.read", async (room) => unwrap(await room.messageVersions(messageId)))
    );
  }

  /** The caller's reaction, their queued question withdrawn, or their private asides (room/message-calls.ts). */
  messageCall(
    id: string,
    call: MessageCall,
    caller: Caller
  ): Promise<RpcResult<MessageCallResults[MessageCall["op"]]>> {
    // Withdrawing and asides are talking to the AI; each touches only the caller's own.
    const action: RoomAction = call.op === "react" ? "room.react" : "room.talk";
    return asResult(() =>
      this.#room(id, caller, action, async (room) => unwrap(await room.messageCall(call, authorOf(caller.identity))))
    );
  }

  sendMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<SendMessageResult>> {
    return asResult(() =>
      this.#send(id, body, caller, async (room) =>
        unwrap(await room.sendFromRest(body, authorOf(caller.identity), arrival))
      )
    );
  }

  /** Like sendMessage, as server-sent events of the answer's chunks. */
  streamMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() =>
      this.#send(id, body, caller, async (room) =>
        unwrap(await room.streamFromRest(body, authorOf(caller.identity), arrival))
      )
    );
  }

  /**
   * Search across the rooms the caller may see: each room searches its own
   * index; late rooms are reported, not waited for (overseer/workspace-search.ts).
   */
  search(query: SearchQuery, caller: Caller): Promise<RpcResult<SearchResponse>> {
    return asResult(async () => {
      this.jobs.access.requireWorkspace(caller, "workspace.read");
      const release = await this.jobs.admission.admitSearch(caller);
      try {
        return await this.jobs.search(query, this.jobs.access.visibleFilter(caller));
      } finally {
        release();
      }
    });
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
      this.#room(id, caller, action, async (room) => unwrap(await room.memoryCall(call, authorOf(caller.identity))))
    );
  }

  /** A room's MCP servers and tool approvals (mcp/mcp-servers.ts, room/room-approvals.ts). */
  roomTools(
    id: string,
    call: RoomToolsCall,
    caller: Caller
  ): Promise<RpcResult<ToolsCallResults[RoomToolsCall["op"]]>> {
    // A room's servers (their addresses and header names) are its managers' business; any member decides calls.
    const action: RoomAction = call.op === "approvals" || call.op === "decide" ? "room.approve" : "room.tools";
    return asResult(() =>
      this.#room(id, caller, action, async (room) => unwrap(await room.toolsCall(call, authorOf(caller.identity))))
    );
  }

  // ── Export, import, fork (overseer/workspace-transfer.ts; room side: agents/room/room-transfer.ts) ──

  exportRoom(id: string, format: "json" | "markdown", caller: Caller): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() => this.#room(id, caller, "room.export", async (room) => unwrap(await room.exportRoom(format))));
  }

  /** Every room the caller may see, as NDJSON, one room after another. */
  exportWorkspace(caller: Caller): Promise<RpcResult<ReadableStream<Uint8Array>>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "workspace.read");
      return this.jobs.transfer.exportWorkspace(this.jobs.access.visibleFilter(caller));
    });
  }

  /**
   * All or nothing: no room of the file appears until every one is made and
   * filled. A `.zip`'s room comes with its files (`archive`), their bytes
   * stored by the Worker under the room `admitZipImport` named.
   */
  importRooms(rooms: ImportedRoom[], caller: Caller, archive?: ArchivedFiles): Promise<RpcResult<ImportResult>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "room.import");
      return this.jobs.transfer.importRooms(rooms, caller, archive);
    });
  }

  /** Before a `.zip` import reads a byte: the caller may import, one upload off their rate, the new room's id. */
  admitZipImport(caller: Caller): Promise<RpcResult<ZipImportTicket>> {
    return asResult(async () => {
      this.jobs.access.requireWorkspace(caller, "room.import");
      await this.jobs.files.takeUpload(caller);
      const roomId = generateRoomId();
      // Bytes land under the room before it exists: swept if it never does.
      this.jobs.files.openWrites.open(roomPrefix(this.name, roomId), ZIP_IMPORT_DEADLINE_MS);
      return { roomId, workspace: this.name };
    });
  }

  /** Once the archive's directory is read, before its files are stored: whether they fit (413 if not). */
  checkZipImportFits(sizes: number[], caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "room.import");
      this.jobs.files.checkImportFits(sizes);
    });
  }

  /**
   * A new room holding the history up to and including `messageId`, owned
   * by the caller. A fork of a private room is private: what was said there
   * stays among its members.
   */
  forkRoom(id: string, messageId: string, caller: Caller): Promise<RpcResult<RoomDetail>> {
    const { access, rooms, transfer } = this.jobs;
    return asResult(async () => {
      access.requireRoom(caller, id, "room.fork");
      access.requireCreate(caller, access.visibility(id));
      const forked = await transfer.forkRoom(id, messageId, caller);
      return { ...(await rooms.get(forked)), access: access.roomAccess(caller, forked) };
    });
  }

  /** Where a room came from (a fork's link back). */
  roomOrigin(id: string, caller: Caller): Promise<RpcResult<RoomOrigin | null>> {
    return asResult(() => this.#room(id, caller, "room.read", (room) => room.origin()));
  }

  // ── Files: bytes go Worker ↔ R2 directly; here only admission, records and purges (overseer/file-records.ts) ──

  /** Before an upload reads a byte: the room exists, the caller may upload, and something fits. */
  admitUpload(id: string, caller: Caller): Promise<RpcResult<UploadTicket>> {
    return asResult(() => this.jobs.fileRecords.admit(id, caller));
  }

  /** After the Worker stored an upload's bytes; fails (and the Worker deletes them) if the room went or filled up. */
  registerFile(id: string, file: NewFile, caller: Caller): Promise<RpcResult<RoomFile>> {
    return asResult(() => this.jobs.fileRecords.register(id, file, caller));
  }

  listFiles(id: string, query: FilesQuery, caller: Caller): Promise<RpcResult<FilePage>> {
    return asResult(() => this.jobs.fileRecords.list(id, query, caller));
  }

  getFile(id: string, fileId: string, caller: Caller): Promise<RpcResult<{ file: RoomFile; key: string }>> {
    return asResult(() => this.jobs.fileRecords.get(id, fileId, caller));
  }

  /** A file's record and index, and where its bytes are, for a `.zip` export (the Worker streams the bytes). */
  exportFileCopy(id: string, fileId: string, caller: Caller): Promise<RpcResult<{ copy: FileCopy; key: string }>> {
    return asResult(() => this.jobs.fileRecords.exportCopy(id, fileId, caller));
  }

  deleteFile(id: string, fileId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(() => this.jobs.fileRecords.delete(id, fileId, caller));
  }

  /**
   * Passages of a file being indexed, from the Worker's extraction, to its
   * room (text only). No caller: the Worker's own background work on a file
   * it just stored for one; the room checks the file is still there.
   */
  addFilePassages(id: string, fileId: string, batch: PassageBatch): Promise<RpcResult<boolean>> {
    return asResult(() => this.jobs.rooms.callChecked(id, (room) => room.addFilePassages(fileId, batch)));
  }

  failFileIndex(id: string, fileId: string, reason: string): Promise<RpcResult<void>> {
    return asResult(() => this.jobs.rooms.callChecked(id, (room) => room.failFileIndex(fileId, reason)));
  }

  /** What the workspace still holds of a room's files (tests prove a deleted room leaves nothing). */
  fileFootprint(id: string): { usage: { bytes: number; files: number }; purges: string[]; open: string[] } {
    return this.jobs.fileRecords.footprint(id);
  }

  // ── Personas: the room owns its roster; the registry only gates the room ──

  listPersonas(id: string, caller: Caller): Promise<RpcResult<Persona[]>> {
    return asResult(() => this.#room(id, caller, "room.read", (room) => room.listPersonas()));
  }

  createPersona(id: string, body: CreatePersonaBody, caller: Caller): Promise<RpcResult<Persona>> {
    return asResult(async () =>
      unwrap(await this.#room(id, caller, "room.personas", (room) => room.createPersona(body)))
    );
  }

  updatePersona(id: string, personaId: string, patch: UpdatePersonaBody, caller: Caller): Promise<RpcResult<Persona>> {
    return asResult(async () =>
      unwrap(await this.#room(id, caller, "room.personas", (room) => room.updatePersona(personaId, patch)))
    );
  }

  deletePersona(id: string, personaId: string, caller: Caller): Promise<RpcResult<void>> {
    return asResult(async () =>
      unwrap(await this.#room(id, caller, "room.personas", (room) => room.deletePersona(personaId)))
    );
  }

  // ── Traces: each room keeps its own (room/trace-store.ts) ──

  describeAgents(id: string, caller: Caller): Promise<RpcResult<AgentTree>> {
    return asResult(() => this.#room(id, caller, "room.read", (room) => room.describeAgents()));
  }

  listTraces(id: string, limit: number, caller: Caller): Promise<RpcResult<TraceList>> {
    return asResult(() => this.#room(id, caller, "room.read", (room) => room.listTraces(limit)));
  }

  getTrace(id: string, traceId: string, caller: Caller): Promise<RpcResult<TraceDetail>> {
    return asResult(() =>
      this.#room(id, caller, "room.read", async (room) => {
        const trace = await room.getTrace(traceId);
        if (!trace) throw traceNotFound(traceId);
        return trace;
      })
    );
  }

  // ── Introspection and budgets (answered from the overseer's own SQLite: no room wakes) ──

  /** The workspace's status over the rooms the caller may see (counts never mention the others). */
  workspaceStatus(caller: Caller): Promise<RpcResult<WorkspaceStatus>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "workspace.read");
      return this.jobs.live.status(
        this.name,
        { roomListSockets: [...this.getConnections(LIST_TAG)].length, dailyTokenBudget: this.jobs.budget.daily() },
        this.jobs.access.visibleFilter(caller)
      );
    });
  }

  workspaceSettings(caller: Caller): Promise<RpcResult<WorkspaceSettings>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "workspace.read");
      return { dailyTokenBudget: this.jobs.budget.daily() };
    });
  }

  /** Answers once every room holding a copy of the budget has dropped it: the next turn anywhere sees the change. */
  updateWorkspaceSettings(patch: UpdateWorkspaceSettingsBody, caller: Caller): Promise<RpcResult<WorkspaceSettings>> {
    return asResult(async () => {
      this.jobs.access.requireWorkspace(caller, "workspace.settings");
      if (patch.dailyTokenBudget !== undefined) await this.jobs.budget.setDaily(patch.dailyTokenBudget);
      return { dailyTokenBudget: this.jobs.budget.daily() };
    });
  }

  /** What the caller has not read in a room, summed up for them alone (room/room-catch-up.ts); a model call, rate-limited like a send. */
  catchUp(id: string, body: CatchUpBody, caller: Caller): Promise<RpcResult<CatchUp>> {
    return asResult(async () => {
      this.jobs.access.requireRoom(caller, id, "room.read");
      await this.jobs.admission.admitMessages(caller);
      const mark = this.jobs.reads.forIdentity(caller.identity.id).find((m) => m.roomId === id);
      const since = { from: body.from ?? null, readCount: mark?.count ?? 0 };
      return this.#room(id, caller, "room.read", async (room) => unwrap(await room.catchUp(since)));
    });
  }

  // ── Notifications: each person's inbox of mentions (overseer/notification-inbox.ts) ──

  /** The caller's inbox, over the rooms it can see now. */
  listNotifications(caller: Caller): Promise<RpcResult<NotificationList>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "workspace.read");
      return this.jobs.notifications.list(caller.identity.id);
    });
  }

  markNotificationsRead(which: MarkNotificationsReadBody, caller: Caller): Promise<RpcResult<NotificationList>> {
    return asResult(() => {
      this.jobs.access.requireWorkspace(caller, "workspace.read");
      return this.jobs.notifications.markRead(caller.identity.id, which);
    });
  }

  /** Whether the caller muted a room's mentions; `muted` sets it (anyone who can see the room, for themselves). */
  roomNotifications(id: string, caller: Caller, muted?: boolean): Promise<RpcResult<RoomNotifications>> {
    return asResult(() => {
      this.jobs.access.requireRoom(caller, id, "room.read");
      if (muted !== undefined) this.jobs.notifications.setMuted(caller.identity.id, id, muted);
      return { roomId: id, muted: this.jobs.notifications.muted(caller.identity.id, id) };
    });
  }

  /** What the workspace still holds of a room's notifications and mutes (tests prove a deleted room leaves none). */
  notificationFootprint(id: string): number {
    return this.jobs.notifications.footprint(id);
  }

  // ── What rooms call (OverseerRoomApi in contracts/overseer-api.ts; overseer/room-reports.ts) ──

  workspaceBudget(roomId: string): WorkspaceBudgetFigure {
    return this.jobs.budget.figureFor(roomId);
  }

  recordRoomActivity(id: string, activity: RoomActivity): WorkspaceBudgetFigure {
    return this.jobs.reports.activity(id, activity);
  }

  recordReads(roomId: string, reads: PendingRead[]): void {
    this.jobs.reports.reads(roomId, reads);
  }

  recordMentions(roomId: string, report: MentionReport): string[] {
    return this.jobs.notifications.mention(roomId, report);
  }

  workspaceMcpServers(roomId: string): WorkspaceMcpServer[] {
    return this.jobs.workspaceMcp.forRoom(roomId);
  }

  // ── Helpers ──

  /** A call to a room the caller may do `action` in (overseer/workspace-rooms.ts). */
  #room: WorkspaceJobs["rooms"]["call"] = (id, caller, action, call) => this.jobs.rooms.call(id, caller, action, call);

  /**
   * A REST send: the caller may talk here, is within its rate, the room has
   * space, and every file the message carries is the room's; then `send`.
   */
  async #send<T>(id: string, body: SendMessageBody, caller: Caller, send: (room: Remote<ChatRoomApi>) => Promise<T>) {
    this.jobs.access.requireRoom(caller, id, "room.talk");
    await this.jobs.admission.admitMessages(caller);
    this.jobs.rooms.requireSpace(id);
    // Whoever writes in a room is one of its members (they keep it if it turns private).
    if (caller.viewerOf === undefined) this.jobs.access.joinOnTalk(caller.identity, id);
    return this.#room(id, caller, "room.talk", async (room) => {
      if (body.files?.length) unwrap(await room.fileRefs(body.files));
      return send(room);
    });
  }
}
