/**
 * The workspace's rooms as facets: made, described, changed and deleted in
 * step with their registry rows and their access records, and every call
 * to a room made only once the caller may do what it asks there. The
 * registry row is what makes a room reachable, so a room is spawned and
 * initialised before its row appears, and its row goes before its facet
 * does (the gate then refuses reconnects at once).
 */
import { AppError, roomNotFound } from "@/server/app-error";
import type { Remote } from "@/server/contracts/remote";
import type { ChatRoomApi } from "@/server/contracts/room-api";
import { CALLER_HEADER, type Caller, decodeCaller } from "@/server/domain/access/caller";
import { generateRoomId, type RoomRow, toRoomDetail } from "@/server/domain/rooms/room-rows";
import { type SocketCounts, socketBudgetRefusal } from "@/server/domain/sockets/socket-budget";
import { isMcpCallbackRequest } from "@/server/domain/tools/mcp-oauth";
import { MAX_MESSAGES_PER_ROOM } from "@/shared/constants";
import type { RoomAction, RoomVisibility } from "@/shared/permissions";
import type { CreateRoomBody, RoomDetail, RoomSettings, UpdateRoomBody } from "@/shared/protocol";
import type { RoomRegistry } from "./registry";
import type { RoomLists } from "./room-lists";
import type { ShareLinks } from "./share-links";
import type { WorkspaceAccess } from "./workspace-access";

/** What the rooms need of their overseer. */
export interface WorkspaceRoomsHost {
  registry: RoomRegistry;
  access: WorkspaceAccess;
  lists: Pick<RoomLists, "announce" | "audience" | "announceDeleted">;
  shares: Pick<ShareLinks, "live">;
  /** The room's facet, spawned (or woken) if needed. */
  facet(id: string): Promise<Remote<ChatRoomApi>>;
  /** Sockets open now to this room, and to the whole workspace (domain/sockets/socket-budget.ts). */
  socketCounts(id: string): SocketCounts;
  /** Whether the room's facet was ever spawned (and not deleted). */
  spawned(id: string): boolean;
  /** Deletes the room's facet: aborts a running answer, closes its sockets, wipes its storage. */
  deleteFacet(id: string): Promise<void>;
  /** Drops what the overseer keeps about a deleted room besides its row (live status, budget copy, shares, read marks, files). */
  forget(id: string): void;
}

const CHAT_ROOM_CLASS = "ChatRoom";
/** A `/sub/<class>/<name>` with another `/sub/` below it: rooms have no children. */
const NESTED_SUB_PATH = /\/sub\/[^/]+\/[^/]+\/sub(\/|$)/;

export class WorkspaceRooms {
  constructor(private readonly host: WorkspaceRoomsHost) {}

  row(id: string): RoomRow | undefined {
    return this.host.registry.row(id);
  }

  require(id: string): RoomRow {
    return this.host.registry.require(id);
  }

  /**
   * The gate in front of every room socket and room HTTP request: a 404 for
   * anything but a registered, spawned room at its own path that exists for
   * the caller (a WebSocket is then closed with 4404), else undefined.
   */
  gate(request: Request, child: { className: string; name: string }): Response | undefined {
    const notFound = () => new Response(`Room "${child.name}" not found`, { status: 404 });
    if (
      NESTED_SUB_PATH.test(new URL(request.url).pathname) ||
      child.className !== CHAT_ROOM_CLASS ||
      !this.row(child.name) ||
      !this.host.spawned(child.name)
    ) {
      return notFound();
    }
    // A room's MCP OAuth callback comes without a caller (domain/tools/mcp-oauth.ts):
    // the room's MCP client claims it only for a state it issued, and refuses the rest.
    if (isMcpCallbackRequest(request)) return undefined;
    // A share viewer reaches only its link's room, and only while the link
    // works (the Worker checked too; this closes the gap to a revoke).
    const caller = decodeCaller(request.headers.get(CALLER_HEADER));
    if (caller?.viewerOf !== undefined) {
      if (!this.host.shares.live(caller.viewerOf, child.name)) {
        return new Response("This share link is no longer valid.", { status: 404 });
      }
      return this.#overBudget(request, child.name, false);
    }
    // Anyone else: only a room that exists for them. A private room they are
    // not in is refused exactly like an unknown one.
    const denied = caller ? asRefusal(() => this.host.access.requireRoom(caller, child.name, "room.read")) : null;
    if (!caller || denied) return notFound();
    return this.#overBudget(request, child.name, this.host.access.keepsPlace(caller, child.name));
  }

  /** A socket past the workspace's budget is refused with 429 (the client sees close code 4429). */
  #overBudget(request: Request, roomId: string, belongs: boolean): Response | undefined {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") return undefined;
    const refusal = socketBudgetRefusal(this.host.socketCounts(roomId), belongs);
    return refusal ? new Response(refusal, { status: 429 }) : undefined;
  }

  /**
   * Runs a call on a registered room, once the caller may do `action` there
   * (404 for a room that does not exist for them, 403 saying who can). A
   * room deleted mid-call fails with 404, not with whatever the aborted
   * facet threw.
   */
  async call<T>(
    id: string,
    caller: Caller,
    action: RoomAction,
    call: (room: Remote<ChatRoomApi>) => Promise<T>
  ): Promise<T> {
    this.host.access.requireRoom(caller, id, action);
    return this.#run(id, call);
  }

  /** `call` without a caller: only for share viewers, whose link was checked already. */
  async callChecked<T>(id: string, call: (room: Remote<ChatRoomApi>) => Promise<T>): Promise<T> {
    this.require(id);
    return this.#run(id, call);
  }

  async #run<T>(id: string, call: (room: Remote<ChatRoomApi>) => Promise<T>): Promise<T> {
    const room = await this.host.facet(id);
    try {
      return await call(room);
    } catch (error) {
      if (!this.row(id)) throw roomNotFound(id);
      throw error;
    }
  }

  /** The room's own socket path checks its exact count; REST uses the registry's. */
  requireSpace(id: string) {
    if (this.require(id).message_count >= MAX_MESSAGES_PER_ROOM) {
      throw new AppError(
        "conflict:room_full",
        409,
        `This room holds ${MAX_MESSAGES_PER_ROOM} messages, the most it can. Start a new room.`
      );
    }
  }

  /** A new room owned by the caller; its row appears only once the room can answer. */
  async create(input: CreateRoomBody, caller: Caller, visibility: RoomVisibility): Promise<RoomDetail> {
    const id = generateRoomId();
    const settings: RoomSettings = {
      name: input.name,
      systemPrompt: input.systemPrompt ?? "",
      model: input.model ?? null,
      temperature: input.temperature ?? null
    };
    // Spawn and initialise the facet first: the registry row is what makes
    // the room reachable, so it must not appear before the room can answer.
    const room = await this.host.facet(id);
    const state = await room.initialize(settings);
    const row = this.host.registry.insert(id, input.name, Date.now());
    this.host.access.roomCreated(id, caller, visibility);
    this.host.lists.announce(row);
    return { ...toRoomDetail(row, state, visibility), access: this.host.access.roomAccess(caller, id) };
  }

  async get(id: string): Promise<RoomDetail> {
    const row = this.require(id);
    const room = await this.host.facet(id);
    return toRoomDetail(row, await room.describe(), this.host.access.visibility(id));
  }

  /** A settings patch, every part of it checked before any part is applied; answers the room as the caller sees it. */
  async update(id: string, patch: UpdateRoomBody, caller: Caller): Promise<RoomDetail> {
    const { access } = this.host;
    for (const action of patchActions(patch)) access.requireRoom(caller, id, action);
    if (patch.visibility !== undefined) await access.setVisibility(caller, id, patch.visibility);
    const { visibility: _, ...settings } = patch;
    const detail = Object.keys(settings).length > 0 ? await this.#updateSettings(id, settings) : await this.get(id);
    return { ...detail, access: access.roomAccess(caller, id) };
  }

  async #updateSettings(id: string, patch: Omit<UpdateRoomBody, "visibility">): Promise<RoomDetail> {
    this.require(id);
    const room = await this.host.facet(id);
    const state = await room.updateSettings(patch);
    // The room may have been deleted while we waited on it.
    const row = this.require(id);
    if (patch.name !== undefined && patch.name !== row.name) {
      this.host.registry.rename(id, patch.name);
      row.name = patch.name;
      this.host.lists.announce(row);
    }
    return toRoomDetail(row, state, this.host.access.visibility(id));
  }

  /**
   * Registry row first, so the gate refuses reconnects at once; then the
   * facet, which aborts a running answer, closes the room's sockets and
   * wipes its storage.
   */
  async delete(id: string): Promise<void> {
    this.require(id);
    // Who is told: only those who could see it (a private room's id is no one else's business).
    const audience = this.host.lists.audience(id);
    this.host.registry.delete(id);
    this.host.forget(id);
    this.host.access.roomDeleted(id);
    this.host.lists.announceDeleted(audience, id);
    await this.host.deleteFacet(id);
  }

  /** Closes the sockets a share link opened in a room (if the room is still there). */
  async closeViewers(roomId: string, shareId: string) {
    if (!this.row(roomId) || !this.host.spawned(roomId)) return;
    const room = await this.host.facet(roomId);
    await room.closeViewers(shareId);
  }

  /** Rooms' copies of the budget are void (best effort; a copy also dies of age). */
  async voidBudgetCopies(ids: string[], epoch: number) {
    const tell = async (id: string) => {
      try {
        if (this.row(id)) await (await this.host.facet(id)).voidWorkspaceBudget(epoch);
      } catch (error) {
        console.warn("[OverseerAgent] a room kept a void budget copy:", error);
      }
    };
    await Promise.all(ids.map(tell));
  }
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
