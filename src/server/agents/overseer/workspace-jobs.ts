/**
 * The overseer's jobs, made and wired to each other in one place: the
 * registry and the tables beside it, who may do what, the rooms as facets,
 * the room lists, budgets, share links, read marks, admission, transfers,
 * files and the reports rooms send.
 * OverseerAgent keeps the gate, the sockets and the RPC surface, and calls
 * these; the jobs get what they need of the agent as the closures below,
 * never the OverseerAgent class (which would make every job and the class
 * one import circle).
 *
 * Tables are made here, in the agent's constructor, not in onStart: the
 * /sub/ gate can run before onStart on a fresh overseer, and it reads the
 * registry.
 *
 * A new job: make it here (after what it uses), add it to the returned
 * object, and call it from OverseerAgent's hooks or RPC methods.
 */
import type { Connection } from "agents";
import type { MCPClientManager } from "agents/mcp/client";
import { unwrap } from "@/server/app-error";
import type { Remote } from "@/server/contracts/remote";
import type { ChatRoomApi } from "@/server/contracts/room-api";
import { accessConfig } from "@/server/domain/access/access-jwt";
import type { IdentityLimits } from "@/server/domain/access/identity-limits";
import { fileLimits, roomPrefix } from "@/server/domain/files/file-limits";
import { searchDeadlineMs } from "@/server/domain/search/search-ranking";
import { routeTag } from "@/server/domain/sockets/socket-tags";
import { readMcpConfig } from "@/server/domain/tools/mcp-config";
import type { Env } from "@/server/env";
import { McpServers } from "@/server/mcp/mcp-servers";
import type { SearchQuery } from "@/shared/search";
import { WorkspaceAdmission } from "./admission";
import { ApiTokenTable } from "./api-tokens";
import { WorkspaceBudgetFigures } from "./budget-figures";
import { FileRecords } from "./file-records";
import { InviteTable } from "./invites";
import { LiveStatusTable } from "./live-status";
import { Notifications } from "./notification-inbox";
import { PeopleTable } from "./people";
import { ReadMarksTable } from "./read-marks";
import { RoomRegistry } from "./registry";
import { RoomLists } from "./room-lists";
import { RoomMembersTable } from "./room-members";
import { RoomReports } from "./room-reports";
import { WorkspaceSettingsTable } from "./settings";
import { ShareLinks, ShareTable } from "./share-links";
import { WorkspaceAccess } from "./workspace-access";
import { WorkspaceFiles } from "./workspace-files";
import { WorkspaceMcp } from "./workspace-mcp";
import { WorkspaceRooms } from "./workspace-rooms";
import { searchRooms } from "./workspace-search";
import { WorkspaceTokens } from "./workspace-tokens";
import { WorkspaceTransfer } from "./workspace-transfer";

/** What the jobs need of the overseer agent. */
export interface WorkspaceAgent {
  ctx: DurableObjectState;
  env: Env;
  /** A room's facet (`dynamicAgents.get`), spawned if absent. */
  facet(id: string): Promise<Remote<ChatRoomApi>>;
  /** Whether a room's facet was spawned and not deleted (`dynamicAgents.has`). */
  spawned(id: string): boolean;
  /** Deletes a room's facet and its storage (`dynamicAgents.delete`). */
  deleteFacet(id: string): Promise<void>;
  /** The agent's `schedule`, for the alarm that ends an expiring share link. */
  scheduleShareExpiry(at: Date, payload: { roomId: string; shareId: string }): Promise<unknown>;
  /** The workspace's name (the agent's instance name). */
  workspace(): string;
  /** Retries a failed purge of files' bytes later (the agent's alarm calls `runFilePurges`). */
  retryFilePurges(): void;
  /** Sweeps file writes past their deadline later (the agent's alarm calls `sweepOpenWrites`). */
  sweepOpenWritesIn(seconds: number): void;
  /** The agent's sockets with a tag (overseer/socket-routes.ts tags them). */
  connections(tag: string): Iterable<Connection>;
  /** Each caller's allowance across every workspace, held by its LimitKeeper (agents/identity-limit-client.ts). */
  identityLimits: IdentityLimits;
  /** The agent's MCP client (`this.mcp`), for the workspace's MCP servers. */
  mcp(): MCPClientManager;
}

/** Jobs made after the tables, which some tables' callbacks reach: read only when those run. */
interface Later {
  rooms: WorkspaceRooms;
  lists: RoomLists;
}

export type WorkspaceJobs = ReturnType<typeof workspaceJobs>;

export function workspaceJobs(agent: WorkspaceAgent) {
  const later = {} as Later;
  const tables = workspaceTables(agent, later);
  const work = workspaceWork(agent, tables);
  Object.assign(later, work);
  return { ...tables, ...work };
}

/** The overseer's tables (each made in its constructor), in the order they were always made. */
function workspaceTables(agent: WorkspaceAgent, later: Later) {
  const { ctx, env } = agent;
  /** Which rooms exist, and what the room list shows of them (overseer/registry.ts). */
  const registry = new RoomRegistry(ctx.storage.sql);
  /** What rooms last reported about themselves (overseer/live-status.ts). */
  const live = new LiveStatusTable(ctx.storage.sql);
  const settings = new WorkspaceSettingsTable(ctx.storage.sql);
  /** The workspace budget as rooms hold it (overseer/budget-figures.ts). */
  const budget = new WorkspaceBudgetFigures(env, settings, live, (ids, epoch) =>
    later.rooms.voidBudgetCopies(ids, epoch)
  );
  const people = new PeopleTable(ctx.storage.sql);
  const members = new RoomMembersTable(ctx.storage.sql);
  const tokenTable = new ApiTokenTable(ctx.storage.sql);
  /** Who may do what: people, roles, room members, invitations (overseer/workspace-access.ts). */
  const access = new WorkspaceAccess(
    {
      people,
      members,
      invites: new InviteTable(ctx.storage.sql),
      tokens: tokenTable
    },
    { ...env, openServer: !env.ACCESS_TOKEN && !accessConfig(env) },
    () => agent.workspace(),
    {
      room: (roomId) => registry.row(roomId),
      accessChanged: (roomId, identityId) => later.lists.accessChanged(roomId, identityId)
    }
  );
  /** Named API tokens, managed by admins (overseer/workspace-tokens.ts). */
  const tokens = new WorkspaceTokens(tokenTable, access);
  /** Share links of this workspace's rooms (overseer/share-links.ts). */
  const shares = new ShareLinks(new ShareTable(ctx.storage.sql), {
    requireRoom: (roomId) => registry.require(roomId),
    room: (roomId) => registry.row(roomId),
    scheduleExpiry: (at, payload) => agent.scheduleShareExpiry(at, payload),
    closeViewers: (roomId, shareId) => later.rooms.closeViewers(roomId, shareId)
  });
  /** How far each identity has read each room (overseer/read-marks.ts). */
  const reads = new ReadMarksTable(ctx.storage.sql);
  /** Rate limits and the room cap (overseer/admission.ts). */
  const admission = new WorkspaceAdmission(env.RATE_LIMIT_SCALE, () => registry.count(), agent.identityLimits);
  /** Files' quotas, upload admission and purges of their bytes (overseer/workspace-files.ts). */
  const files = new WorkspaceFiles(
    ctx.storage.sql,
    () => fileLimits(env),
    env.RATE_LIMIT_SCALE,
    {
      bucket: env.FILES,
      retryLater: () => agent.retryFilePurges(),
      sweepIn: (seconds) => agent.sweepOpenWritesIn(seconds),
      waitUntil: (promise) => ctx.waitUntil(promise)
    },
    agent.identityLimits
  );
  /** Each person's inbox of mentions, and the rooms they muted (overseer/notification-inbox.ts). */
  const notifications = new Notifications(ctx.storage.sql, {
    roomName: (roomId) => registry.row(roomId)?.name,
    visibility: (roomId) => members.visibility(roomId),
    roomRole: (roomId, identityId) => members.role(roomId, identityId),
    isAdmin: (identityId) => people.isAdmin(identityId),
    peopleNamed: (name) => people.idsNamed(name),
    sendToReader: (identityId, frame) => later.lists.sendToReader(identityId, frame)
  });
  return { registry, live, settings, budget, access, tokens, shares, reads, admission, files, notifications };
}

/** The jobs over those tables: the room lists, transfers, the rooms as facets, files, reports, search. */
function workspaceWork(agent: WorkspaceAgent, tables: ReturnType<typeof workspaceTables>) {
  const { ctx, env } = agent;
  const { registry, live, budget, access, shares, reads, admission, files, notifications } = tables;
  /** The workspace's MCP servers, which every room connects to itself (overseer/workspace-mcp.ts). */
  const mcpConfig = () => readMcpConfig(env);
  const workspaceMcp = new WorkspaceMcp({
    servers: new McpServers({
      sql: ctx.storage.sql,
      mcp: () => agent.mcp(),
      limits: () => ({ allowPrivate: mcpConfig().allowPrivate, maxResponseBytes: mcpConfig().maxResponseBytes }),
      waitUntil: (promise) => ctx.waitUntil(promise),
      scope: "workspace"
    }),
    exists: (roomId) => registry.row(roomId) !== undefined,
    tell: async (roomId, servers, who) => {
      unwrap(await (await agent.facet(roomId)).toolsCall({ op: "workspaceServers", servers }, who));
    }
  });
  /** What each room-list socket sees, and access changes reaching lists and rooms (overseer/room-lists.ts). */
  const lists = new RoomLists({
    registry,
    access,
    reads,
    connections: (tag) => agent.connections(tag),
    facet: (id) => agent.facet(id),
    spawned: (id) => agent.spawned(id)
  });
  /** Export, import and fork, the overseer's half (overseer/workspace-transfer.ts). */
  const transfer = new WorkspaceTransfer({
    registry,
    admission,
    room: (id) => agent.facet(id),
    deleteRoom: (id) => agent.deleteFacet(id),
    registered: (row, owner, visibility) => {
      access.roomCreated(row.id, owner, visibility);
      lists.announce(row);
    },
    visibility: (id) => access.visibility(id),
    // Whoever imports or forks a room has read it (reports is made below; called after).
    markRead: (identityId, roomId, count) => reports.reads(roomId, [{ identityId, count, messageId: null }]),
    files: {
      checkCopyFits: (bytes) => files.checkCopyFits(bytes),
      checkImportFits: (sizes) => files.checkImportFits(sizes),
      settleImport: (roomId) => files.openWrites.settle(roomPrefix(agent.workspace(), roomId)),
      added: (roomId, size) => files.added(roomId, size),
      copy: (from, to, fileId) => files.copy(agent.workspace(), from, to, fileId),
      discarded: (roomId) => files.roomDeleted(agent.workspace(), roomId)
    }
  });
  /** The rooms as facets, in step with their rows and access records (overseer/workspace-rooms.ts). */
  const rooms = new WorkspaceRooms({
    registry,
    access,
    lists,
    shares,
    facet: (id) => agent.facet(id),
    spawned: (id) => agent.spawned(id),
    socketCounts: (id) => {
      const tag = routeTag([{ className: "ChatRoom", name: id }]);
      return { room: tag ? agent.ctx.getWebSockets(tag).length : 0, workspace: agent.ctx.getWebSockets().length };
    },
    deleteFacet: (id) => agent.deleteFacet(id),
    forget: (id) => {
      live.forget(id);
      budget.forget(id);
      shares.deleteRoom(id);
      reads.forgetRoom(id);
      notifications.forgetRoom(id);
      workspaceMcp.forget(id);
      files.roomDeleted(agent.workspace(), id);
    }
  });
  /** A room's file records, kept in step with the quotas (overseer/file-records.ts). */
  const fileRecords = new FileRecords(rooms, access, files, () => agent.workspace());
  /** Activity and read marks, as rooms push them (overseer/room-reports.ts). */
  const reports = new RoomReports({
    registry,
    live,
    reads,
    budget,
    announce: (row) => lists.announce(row),
    sendToReader: (identityId, frame) => lists.sendToReader(identityId, frame),
    waitUntil: (promise) => ctx.waitUntil(promise),
    talked: (roomId, talker) => access.joinOnTalk(talker, roomId)
  });
  /** Search across the rooms a caller may see: each room searches its own index (overseer/workspace-search.ts). */
  const search = (query: SearchQuery, visible: (roomId: string) => boolean) =>
    searchRooms(query, {
      rooms: (only) => registry.searchable(only).filter((row) => visible(row.id)),
      searchRoom: async (id, q, limit) => (await agent.facet(id)).searchMessages(q, limit),
      deadlineMs: searchDeadlineMs(env)
    });
  return { lists, transfer, rooms, fileRecords, reports, search, workspaceMcp };
}
