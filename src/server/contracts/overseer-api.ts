/**
 * The overseer's RPC surface, as interfaces below every module that calls
 * it: the REST routes (`OverseerRestApi`, reached through
 * routes/overseer-stub.ts) and its rooms (`OverseerRoomApi`, reached
 * through agents/room/overseer-link.ts). `OverseerAgent` implements both,
 * so the compiler holds the class to them; callers import these, never the
 * class (which imports every job module: a caller typed by the class closes
 * an import circle through it).
 *
 * A new RPC method goes here first, then into the class.
 */
import type { RpcResult } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import type { WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import type { UploadTicket } from "@/server/domain/files/file-limits";
import type { PassageBatch } from "@/server/domain/files/text-passages";
import type { MentionReport } from "@/server/domain/notifications/mention-fragments";
import type { InviteClaims } from "@/server/domain/roles/invite-token";
import type { PendingRead } from "@/server/domain/rooms/read-positions";
import type { RoomActivity } from "@/server/domain/rooms/room-rows";
import type { WorkspaceMcpServer } from "@/server/domain/tools/workspace-mcp-sync";
import type { ImportedRoom } from "@/server/domain/transfer/imported-room";
import type { ArchivedFiles, ZipImportTicket } from "@/server/domain/transfer/zip-import";
import type { UpdateWorkspaceSettingsBody, WorkspaceSettings } from "@/shared/budgets";
import type { CatchUp, CatchUpBody } from "@/shared/catch-up";
import type { FileCopy, FilePage, FilesQuery, NewFile, RoomFile } from "@/shared/files";
import type { MessageAuthor } from "@/shared/identity";
import type { AgentTree, WorkspaceStatus } from "@/shared/introspection";
import type {
  AcceptedInvite,
  ApiTokenInfo,
  InviteView,
  MemberCandidates,
  MemberList,
  Person,
  WorkspaceAccess
} from "@/shared/members";
import type { MarkNotificationsReadBody, NotificationList, RoomNotifications } from "@/shared/notifications";
import type { WorkspaceRole } from "@/shared/permissions";
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
import type { ShareView } from "@/shared/shares";
import type { TraceDetail, TraceList } from "@/shared/traces";
import type { ImportResult, RoomOrigin } from "@/shared/transfer";
import type {
  MemoryCall,
  MemoryCallResults,
  MessageCall,
  MessageCallResults,
  RestArrival,
  RoomToolsCall,
  ToolsCallResults,
  WorkspaceToolsCall
} from "./room-api";

/** A share link as the overseer stores it (agents/overseer/share-links.ts): the token's hash, never the token. */
export type ShareRow = {
  id: string;
  room_id: string;
  token_hash: string;
  /** Epoch ms. */
  created_at: number;
  /** Epoch ms, or null for a link that lasts until revoked. */
  expires_at: number | null;
  /** JSON of the MessageAuthor who made it. */
  created_by: string;
};

/** A link the Worker signed, for the overseer to record. */
export interface NewShare {
  id: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number | null;
  createdBy: MessageAuthor;
}

/**
 * What the REST routes call. Expected failures come back as values
 * (RpcResult), never as throws, so a route can answer them with their own
 * status.
 */
export interface OverseerRestApi {
  // Every method takes the caller and asks who may before doing anything
  // (agents/overseer/workspace-access.ts; the rules in shared/permissions.ts).
  // Rooms
  listRooms(caller: Caller): Promise<RpcResult<RoomSummary[]>>;
  createRoom(input: CreateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>>;
  getRoom(id: string, caller: Caller): Promise<RpcResult<RoomDetail>>;
  updateRoom(id: string, patch: UpdateRoomBody, caller: Caller): Promise<RpcResult<RoomDetail>>;
  deleteRoom(id: string, caller: Caller): Promise<RpcResult<void>>;
  roomOrigin(id: string, caller: Caller): Promise<RpcResult<RoomOrigin | null>>;
  // Messages
  listMessages(id: string, query: MessagesQuery, caller: Caller): Promise<RpcResult<MessagePage>>;
  messageVersions(id: string, messageId: string, caller: Caller): Promise<RpcResult<MessageVersions>>;
  /** The caller's reaction toggled (`room.react`), or their queued question withdrawn (`room.talk`). */
  messageCall(id: string, call: MessageCall, caller: Caller): Promise<RpcResult<MessageCallResults[MessageCall["op"]]>>;
  sendMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<SendMessageResult>>;
  streamMessage(
    id: string,
    body: SendMessageBody,
    caller: Caller,
    arrival?: RestArrival
  ): Promise<RpcResult<ReadableStream<Uint8Array>>>;
  search(query: SearchQuery, caller: Caller): Promise<RpcResult<SearchResponse>>;
  // Personas
  listPersonas(id: string, caller: Caller): Promise<RpcResult<Persona[]>>;
  createPersona(id: string, body: CreatePersonaBody, caller: Caller): Promise<RpcResult<Persona>>;
  updatePersona(id: string, personaId: string, patch: UpdatePersonaBody, caller: Caller): Promise<RpcResult<Persona>>;
  deletePersona(id: string, personaId: string, caller: Caller): Promise<RpcResult<void>>;
  // MCP servers, tool policies and approvals (mcp/mcp-servers.ts, room/room-approvals.ts)
  roomTools(id: string, call: RoomToolsCall, caller: Caller): Promise<RpcResult<ToolsCallResults[RoomToolsCall["op"]]>>;
  /** The workspace's MCP servers, which every room offers (admins; agents/overseer/workspace-mcp.ts). */
  workspaceTools(
    call: WorkspaceToolsCall,
    caller: Caller
  ): Promise<RpcResult<ToolsCallResults[WorkspaceToolsCall["op"]]>>;
  // Memory: pins, summaries, what an answer saw (the caller is who pins, and who may)
  roomMemory(id: string, call: MemoryCall, caller: Caller): Promise<RpcResult<MemoryCallResults[MemoryCall["op"]]>>;
  // Traces and introspection
  describeAgents(id: string, caller: Caller): Promise<RpcResult<AgentTree>>;
  listTraces(id: string, limit: number, caller: Caller): Promise<RpcResult<TraceList>>;
  getTrace(id: string, traceId: string, caller: Caller): Promise<RpcResult<TraceDetail>>;
  workspaceStatus(caller: Caller): Promise<RpcResult<WorkspaceStatus>>;
  workspaceSettings(caller: Caller): Promise<RpcResult<WorkspaceSettings>>;
  updateWorkspaceSettings(patch: UpdateWorkspaceSettingsBody, caller: Caller): Promise<RpcResult<WorkspaceSettings>>;
  // Export, import, fork
  exportRoom(id: string, format: "json" | "markdown", caller: Caller): Promise<RpcResult<ReadableStream<Uint8Array>>>;
  exportWorkspace(caller: Caller): Promise<RpcResult<ReadableStream<Uint8Array>>>;
  importRooms(rooms: ImportedRoom[], caller: Caller, archive?: ArchivedFiles): Promise<RpcResult<ImportResult>>;
  admitZipImport(caller: Caller): Promise<RpcResult<ZipImportTicket>>;
  checkZipImportFits(sizes: number[], caller: Caller): Promise<RpcResult<void>>;
  forkRoom(id: string, messageId: string, caller: Caller): Promise<RpcResult<RoomDetail>>;
  // Files (the bytes go Worker ↔ R2; these carry records only)
  admitUpload(id: string, caller: Caller): Promise<RpcResult<UploadTicket>>;
  registerFile(id: string, file: NewFile, caller: Caller): Promise<RpcResult<RoomFile>>;
  listFiles(id: string, query: FilesQuery, caller: Caller): Promise<RpcResult<FilePage>>;
  getFile(id: string, fileId: string, caller: Caller): Promise<RpcResult<{ file: RoomFile; key: string }>>;
  deleteFile(id: string, fileId: string, caller: Caller): Promise<RpcResult<void>>;
  exportFileCopy(id: string, fileId: string, caller: Caller): Promise<RpcResult<{ copy: FileCopy; key: string }>>;
  addFilePassages(id: string, fileId: string, batch: PassageBatch): Promise<RpcResult<boolean>>;
  failFileIndex(id: string, fileId: string, reason: string): Promise<RpcResult<void>>;

  // Share links (owner and admins); a viewer's own reads are checked by its token
  createShare(roomId: string, share: NewShare, caller: Caller): Promise<RpcResult<ShareRow>>;
  listShares(roomId: string, caller: Caller): Promise<RpcResult<ShareRow[]>>;
  revokeShare(roomId: string, shareId: string, caller: Caller): Promise<RpcResult<void>>;
  /** A viewer's request (rate-limited by `viewerAddress`), then what its link shows. */
  openShare(shareId: string, roomId: string, tokenHash: string, viewerAddress: string): Promise<RpcResult<ShareView>>;
  sharedMessages(share: SharedRoom, query: { before?: string; limit: number }): Promise<RpcResult<MessagePage>>;
  sharedFiles(share: SharedRoom, query: FilesQuery): Promise<RpcResult<FilePage>>;
  sharedFile(share: SharedRoom, fileId: string): Promise<RpcResult<{ file: RoomFile; key: string }>>;
  // Members and invitations
  listMembers(id: string, caller: Caller): Promise<RpcResult<MemberList>>;
  removeMember(id: string, userId: string, caller: Caller): Promise<RpcResult<void>>;
  addMember(id: string, userId: string, caller: Caller): Promise<RpcResult<MemberList>>;
  memberCandidates(id: string, query: string, caller: Caller): Promise<RpcResult<MemberCandidates>>;
  transferOwnership(id: string, userId: string, caller: Caller): Promise<RpcResult<MemberList>>;
  createInvite(id: string, invite: NewInvite, caller: Caller): Promise<RpcResult<InviteRow>>;
  listInvites(id: string, caller: Caller): Promise<RpcResult<InviteRow[]>>;
  revokeInvite(id: string, inviteId: string, caller: Caller): Promise<RpcResult<void>>;
  viewInvite(claims: InviteClaims, tokenHash: string, caller: Caller): Promise<RpcResult<InviteView>>;
  acceptInvite(claims: InviteClaims, tokenHash: string, caller: Caller): Promise<RpcResult<AcceptedInvite>>;
  // The workspace's people, roles and API tokens
  me(caller: Caller): Promise<RpcResult<WorkspaceAccess>>;
  listPeople(caller: Caller): Promise<RpcResult<Person[]>>;
  setRole(userId: string, role: WorkspaceRole, caller: Caller): Promise<RpcResult<Person[]>>;
  createApiToken(input: NewApiToken, caller: Caller): Promise<RpcResult<ApiTokenInfo>>;
  listApiTokens(caller: Caller): Promise<RpcResult<ApiTokenInfo[]>>;
  revokeApiToken(tokenId: string, caller: Caller): Promise<RpcResult<void>>;
  // Notifications: the caller's own inbox, and its mutes
  listNotifications(caller: Caller): Promise<RpcResult<NotificationList>>;
  // Catch me up: a summary of what the caller has not read in a room, for the caller alone
  catchUp(id: string, body: CatchUpBody, caller: Caller): Promise<RpcResult<CatchUp>>;
  markNotificationsRead(which: MarkNotificationsReadBody, caller: Caller): Promise<RpcResult<NotificationList>>;
  roomNotifications(id: string, caller: Caller, muted?: boolean): Promise<RpcResult<RoomNotifications>>;
}

/** A share link as its viewer presents it: the link's id, its room and the token's hash. */
export interface SharedRoom {
  shareId: string;
  roomId: string;
  tokenHash: string;
}

/** What the Worker calls before routing: whether a presented API token is good (http/access.ts). */
export interface OverseerTokenApi {
  verifyApiToken(tokenId: string, tokenHash: string): ApiTokenInfo | null;
}

/** An invitation as the overseer stores it (agents/overseer/invites.ts): the token's hash, never the token. */
export type InviteRow = {
  id: string;
  room_id: string;
  token_hash: string;
  /** Epoch ms. */
  created_at: number;
  /** Epoch ms. */
  expires_at: number;
  max_uses: number | null;
  uses: number;
  /** JSON of the MessageAuthor who made it. */
  created_by: string;
};

/** An invitation the Worker signed, for the overseer to record. */
export interface NewInvite {
  id: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  maxUses: number | null;
}

/** A token the Worker made, for the overseer to record (only its hash). */
export interface NewApiToken {
  id: string;
  name: string;
  role: WorkspaceRole | undefined;
  tokenHash: string;
}

/** What a room calls on its overseer (through agents/room/overseer-link.ts). */
export interface OverseerRoomApi {
  /**
   * After the room's transcript changed; answers the workspace's budget
   * figure, which the room keeps for its turns. Stale reports are dropped.
   */
  recordRoomActivity(id: string, activity: RoomActivity): WorkspaceBudgetFigure;
  /**
   * The positions the room's readers reached (computed from the room's own
   * count). Each moved mark goes to its own identity's list sockets, every
   * tab of theirs, and to no one else.
   */
  recordReads(roomId: string, reads: PendingRead[]): void;
  /**
   * A new message's mentions of people (its `@` fragments): the overseer
   * notifies those who can see the room and did not mute it. Answers the
   * identities notified.
   */
  recordMentions(roomId: string, report: MentionReport): string[];
  /**
   * The room asks when its copy of the workspace's budget is missing, old or
   * near the limit (domain/budgets/workspace-budget-cache.ts); otherwise the
   * answer to its activity reports keeps the copy current.
   */
  workspaceBudget(roomId: string): WorkspaceBudgetFigure;
  /**
   * The workspace's MCP servers with their headers, for the room to connect
   * to; the room then hears of every change (domain/tools/workspace-mcp-sync.ts).
   */
  workspaceMcpServers(roomId: string): WorkspaceMcpServer[];
}
