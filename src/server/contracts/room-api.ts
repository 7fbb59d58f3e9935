/**
 * A room's RPC surface, as interfaces below every module that calls it:
 * the overseer and its job modules (`ChatRoomApi`), and the room's own
 * persona and task facets (`RoomParentApi`). `ChatRoom` implements both, so
 * the compiler holds the class to them; callers import these, never the
 * class (which imports every room job: a caller typed by the class closes an
 * import circle through it).
 *
 * A new RPC method goes here first, then into the class.
 */

import type { RpcResult } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import type { PassageBatch } from "@/server/domain/files/text-passages";
import type { WorkspaceMcpServer } from "@/server/domain/tools/workspace-mcp-sync";
import type { FileSearchHit, HistorySearchHit } from "@/server/domain/turns/room-tools";
import type { Aside, AsideList } from "@/shared/asides";
import type { CatchUp, CatchUpSince } from "@/shared/catch-up";
import type { FileCopy, FilePage, FileRef, FilesQuery, NewFile, RoomFile } from "@/shared/files";
import type { MessageAuthor } from "@/shared/identity";
import type { AgentTree } from "@/shared/introspection";
import type { AnswerContext, CreatePinBody, Pin, RoomMemory, UpdatePinBody } from "@/shared/memory";
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
import type { WithdrawResult } from "@/shared/question-queue";
import type { ReactionToggleResult } from "@/shared/reactions";
import type { SearchHit } from "@/shared/search";
import type {
  AddMcpServerBody,
  ApprovalDecisionBody,
  McpServerList,
  McpServerView,
  McpToolView,
  ToolApproval,
  ToolApprovalList,
  UpdateMcpToolBody
} from "@/shared/tools";
import type { TraceDetail, TraceList } from "@/shared/traces";
import type { ExportedMemory, ExportedVersion, RoomOrigin } from "@/shared/transfer";

/** How a REST send reaches the room: the client's `traceparent` (if any) and when the Worker got it. */
export interface RestArrival {
  traceparent: string | null;
  receivedAt: number;
}

/**
 * One call on the room's messages by a person, as the overseer hands it over: a reaction
 * (room/room-reactions.ts), withdrawing a queued question (room/room-queue.ts), or the
 * person's own private asides (room/room-asides.ts).
 */
export type MessageCall =
  | { op: "react"; messageId: string; emoji: string }
  | { op: "withdraw"; messageId: string }
  | { op: "asides" }
  | { op: "ask"; text: string }
  | { op: "shareAside"; asideId: string }
  | { op: "deleteAside"; asideId: string };

/** What each message call answers. */
export interface MessageCallResults {
  react: ReactionToggleResult;
  withdraw: WithdrawResult;
  asides: AsideList;
  ask: Aside;
  shareAside: Aside;
  deleteAside: null;
}

/** One call of the memory routes (agents/room/room-memory.ts), as the overseer hands it to the room. */
export type MemoryCall =
  | { op: "view" }
  | { op: "addPin"; body: CreatePinBody }
  | { op: "updatePin"; pinId: string; body: UpdatePinBody }
  | { op: "deletePin"; pinId: string }
  | { op: "rebuild" }
  | { op: "context"; messageId: string };

/** What each memory call answers. */
export interface MemoryCallResults {
  view: RoomMemory;
  addPin: Pin;
  updatePin: Pin;
  deletePin: null;
  rebuild: { startedAt: number };
  context: AnswerContext;
}

/** One call of the MCP and approval routes (mcp/mcp-servers.ts, room-approvals.ts). */
export type ToolsCall =
  | { op: "servers" }
  /** `callbackUrl`: the room's OAuth callback on the app's origin (domain/tools/mcp-oauth.ts); a room's routes only. */
  | { op: "addServer"; body: AddMcpServerBody; callbackUrl?: string }
  | { op: "removeServer"; serverId: string }
  | { op: "reconnect"; serverId: string; callbackUrl?: string }
  | { op: "updateTool"; serverId: string; tool: string; body: UpdateMcpToolBody }
  | { op: "approvals" }
  | { op: "decide"; toolCallId: string; body: ApprovalDecisionBody }
  /**
   * Not a route's: the overseer's new list of the workspace's servers, after
   * `who` changed it (domain/tools/workspace-mcp-sync.ts); answers once the
   * servers gone from it are dropped.
   */
  | { op: "workspaceServers"; servers: WorkspaceMcpServer[] };

/** The calls the room's MCP and approval routes make (the overseer's list is not one). */
export type RoomToolsCall = Exclude<ToolsCall, { op: "workspaceServers" }>;

/** The calls of the workspace's MCP routes (agents/overseer/workspace-mcp.ts): a room's, without approvals. */
export type WorkspaceToolsCall = Extract<
  ToolsCall,
  { op: "servers" | "addServer" | "removeServer" | "reconnect" | "updateTool" }
>;

/** What each tools call answers. */
export interface ToolsCallResults {
  servers: McpServerList;
  addServer: McpServerView;
  removeServer: null;
  reconnect: McpServerView;
  updateTool: McpToolView;
  approvals: ToolApprovalList;
  decide: ToolApproval;
  workspaceServers: null;
}

/** What the overseer calls on a room it has checked in its registry. */
export interface ChatRoomApi {
  // Settings
  /** Called once, right after the overseer spawns the facet. */
  initialize(settings: RoomSettings): Promise<RoomState>;
  describe(): RoomState;
  updateSettings(patch: Partial<RoomSettings>): Promise<RoomState>;
  /** The room's copy of the workspace budget may be wrong (agents/room/budget.ts). */
  voidWorkspaceBudget(epoch: number): void;
  // Messages
  listMessages(query: { before?: string; limit: number }): Promise<MessagePage>;
  listMessagesNear(query: MessagesQuery): Promise<RpcResult<MessagePage>>;
  messageVersions(messageId: string): Promise<RpcResult<MessageVersions>>;
  /** What the caller has not read, summed up for them alone (room/room-catch-up.ts). */
  catchUp(since: CatchUpSince): Promise<RpcResult<CatchUp>>;
  /** A REST send; 400 `bad_request:reply_to` when `body.replyTo` names no message of this room. */
  sendFromRest(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival
  ): Promise<RpcResult<SendMessageResult>>;
  streamFromRest(
    body: SendMessageBody,
    author: MessageAuthor,
    arrival?: RestArrival
  ): Promise<RpcResult<ReadableStream<Uint8Array>>>;
  searchMessages(query: string, limit: number): Promise<SearchHit[]>;
  /** A reaction, a queued question withdrawn, or `who`'s private asides; 404 for what the room lacks. */
  messageCall(call: MessageCall, who: MessageAuthor): Promise<RpcResult<MessageCallResults[MessageCall["op"]]>>;
  // Personas
  listPersonas(): Persona[];
  createPersona(body: CreatePersonaBody): Promise<RpcResult<Persona>>;
  updatePersona(personaId: string, patch: UpdatePersonaBody): Promise<RpcResult<Persona>>;
  deletePersona(personaId: string): Promise<RpcResult<void>>;
  // Traces and introspection
  listTraces(limit: number): TraceList;
  getTrace(traceId: string): TraceDetail | null;
  describeAgents(): Promise<AgentTree>;
  // MCP servers, tool policies and approvals (the caller is who adds or decides)
  toolsCall(call: ToolsCall, who: MessageAuthor): Promise<RpcResult<ToolsCallResults[ToolsCall["op"]]>>;
  // Memory: pins, summaries, what an answer saw
  memoryCall(call: MemoryCall, who: MessageAuthor): Promise<RpcResult<MemoryCallResults[MemoryCall["op"]]>>;
  // Export, import, fork
  exportRoom(format: "json" | "markdown" | "ndjson", leafId?: string): RpcResult<ReadableStream<Uint8Array>>;
  /** Whether a message is on this room's history (forks check before they create anything). */
  hasMessage(messageId: string): Promise<boolean>;
  /** The files a fork at `messageId` copies: those added no later than that message. */
  forkFiles(messageId: string): Promise<RoomFile[]>;
  /** A file's record and index, to copy into another room; its record into this one (same id). */
  copyFileOut(fileId: string): Promise<RpcResult<FileCopy>>;
  copyFileIn(copy: FileCopy): Promise<RpcResult<void>>;
  /** Imports a batch of already-validated messages after the current leaf. */
  importMessages(messages: ChatMessage[], after?: string | null): Promise<void>;
  /** Imports kept earlier versions, each under its parent (before the transcript). */
  importVersions(versions: ExportedVersion[]): Promise<void>;
  /** Reads another room's NDJSON export into this one (a fork), a batch at a time. */
  importStream(stream: ReadableStream<Uint8Array>, origin: RoomOrigin | null): Promise<number>;
  /** Pins and summaries of an import, after its messages (a summary naming messages the room lacks is skipped). */
  importMemory(memory: ExportedMemory): Promise<void>;
  finishImport(): Promise<{ messageCount: number }>;
  origin(): RoomOrigin | null;
  // Who the room's sockets belong to (agents/room/socket-access.ts)
  /** A link was revoked or expired: closes every socket opened with it; answers how many. */
  closeViewers(shareId: string): number;
  /** Who has a socket open here now, once per identity (the overseer checks each still may see the room). */
  connectedCallers(): Caller[];
  /** Closes every socket of these identities (they may no longer see the room), saying why. */
  closeSocketsOf(identityIds: string[], code: number, reason: string): number;
  // Files: records and their index (the bytes are in R2)
  addFile(file: NewFile): RoomFile;
  listFiles(query: FilesQuery): Promise<RpcResult<FilePage>>;
  getFile(fileId: string): Promise<RpcResult<RoomFile>>;
  /** `anyone`: the caller may remove other people's files too (owner, admins). */
  deleteFile(fileId: string, by: MessageAuthor, anyone?: boolean): Promise<RpcResult<RoomFile>>;
  /** A batch of an indexed file's passages (server/files/extract-passages.ts); false: the file is gone, stop. */
  addFilePassages(fileId: string, batch: PassageBatch): boolean;
  /** The file parts of a message carrying these files of this room; 404 for one that is not. */
  fileRefs(fileIds: readonly string[]): Promise<RpcResult<FileRef[]>>;
  failFileIndex(fileId: string, reason: string): void;
}

/** What a room's persona and task facets call on their room (through agents/room/parent.ts). */
export interface RoomParentApi {
  /** A span of the facet's work, for the room's one trace store (domain/tracing/facet-spans.ts). */
  reportSpan(report: unknown): void;
  /** Full-text search over the room's transcript (a persona's history tool). */
  searchHistory(query: string, limit: number): Promise<HistorySearchHit[]>;
  /** Full-text search over the room's files (a persona's `search_files` tool). */
  searchFiles(query: string, limit: number): Promise<FileSearchHit[]>;
  /** A persona's reaction to a message (its `react` tool): added, never toggled off. */
  reactAsPersona(personaId: string, messageId: string, emoji: string): Promise<{ reacted: true; emoji: string }>;
}
