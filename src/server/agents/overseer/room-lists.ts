/**
 * What each room-list socket sees: the rooms its caller may see, the room
 * frames that concern them, and, when who may see a room changes, the room
 * appearing or going in every list concerned and the room sockets of those
 * who lost it closing at once. A private room's id is no one else's
 * business: no frame about it reaches a socket whose caller may not see it.
 */
import type { Connection } from "agents";
import type { Remote } from "@/server/contracts/remote";
import type { ChatRoomApi } from "@/server/contracts/room-api";
import { type Caller, callerOf } from "@/server/domain/access/caller";
import { type RoomRow, toRoomSummary } from "@/server/domain/rooms/room-rows";
import { LIST_TAG } from "@/server/domain/sockets/socket-tags";
import { ACCESS_REVOKED_CODE } from "@/shared/members";
import type { OverseerFrame, RoomSummary } from "@/shared/protocol";
import { type ReadMarksTable, readerTag } from "./read-marks";
import type { RoomRegistry } from "./registry";
import type { WorkspaceAccess } from "./workspace-access";

/** What the lists need of their overseer. */
export interface RoomListsHost {
  registry: RoomRegistry;
  access: Pick<WorkspaceAccess, "visibility" | "canSee" | "visibleFilter">;
  reads: Pick<ReadMarksTable, "forget" | "forIdentity">;
  /** The agent's sockets with a tag (list sockets: LIST_TAG, and each reader's tag). */
  connections(tag: string): Iterable<Connection>;
  /** The room's facet, spawned if absent. */
  facet(id: string): Promise<Remote<ChatRoomApi>>;
  /** Whether the room's facet was ever spawned (and not deleted). */
  spawned(id: string): boolean;
}

export class RoomLists {
  constructor(private readonly host: RoomListsHost) {}

  summary(row: RoomRow): RoomSummary {
    return toRoomSummary(row, this.host.access.visibility(row.id));
  }

  /** The rooms the caller may see, most recently active first. */
  roomsFor(caller: Caller): RoomSummary[] {
    const visible = this.host.access.visibleFilter(caller);
    return this.host.registry
      .list()
      .filter((row) => visible(row.id))
      .map((row) => this.summary(row));
  }

  /** The room-list sockets whose caller may see this room (of one identity, when given). */
  audience(roomId: string, identityId?: string): Connection[] {
    const sockets = [...this.host.connections(identityId === undefined ? LIST_TAG : readerTag(identityId))];
    if (this.host.access.visibility(roomId) === "workspace") return sockets;
    return sockets.filter((connection) => {
      const caller = callerOf(connection);
      return caller !== null && this.host.access.canSee(caller, roomId);
    });
  }

  /** A new list socket: the rooms its caller may see, and how far they have read each. */
  greet(connection: Connection, caller: Caller | null) {
    const send = (frame: OverseerFrame) => connection.send(JSON.stringify(frame));
    send({ type: "rooms", rooms: caller ? this.roomsFor(caller) : [] });
    if (caller) send({ type: "read_marks", marks: this.host.reads.forIdentity(caller.identity.id), replace: true });
  }

  /** A room appeared or changed: to the list sockets of everyone who may see it. */
  announce(row: RoomRow) {
    const frame = JSON.stringify({ type: "room_upserted", room: this.summary(row) } satisfies OverseerFrame);
    for (const connection of this.audience(row.id)) connection.send(frame);
  }

  /** A room was deleted: to the audience taken before it went. */
  announceDeleted(audience: Connection[], roomId: string) {
    const frame = JSON.stringify({ type: "room_deleted", id: roomId } satisfies OverseerFrame);
    for (const connection of audience) connection.send(frame);
  }

  /** To one identity's own list sockets (every tab of theirs), never anyone else's. */
  sendToReader(identityId: string, frame: OverseerFrame) {
    const message = JSON.stringify(frame);
    for (const connection of this.host.connections(readerTag(identityId))) connection.send(message);
  }

  /**
   * Who may see a room changed (a member removed or added, its visibility,
   * someone's role): every room list concerned gets the room or loses it,
   * and room sockets whose caller may no longer see it close at once with
   * ACCESS_REVOKED_CODE (the client says why and stops reconnecting; the
   * gate would refuse it anyway). `identityId`: only that person changed.
   */
  async accessChanged(roomId: string, identityId?: string) {
    const { access, registry, reads } = this.host;
    const row = registry.row(roomId);
    if (!row) return;
    const upsert = JSON.stringify({ type: "room_upserted", room: this.summary(row) } satisfies OverseerFrame);
    const gone = JSON.stringify({ type: "room_deleted", id: roomId, reason: "access" } satisfies OverseerFrame);
    const lost = new Set<string>();
    for (const connection of this.host.connections(identityId === undefined ? LIST_TAG : readerTag(identityId))) {
      const caller = callerOf(connection);
      const sees = caller !== null && access.canSee(caller, roomId);
      connection.send(sees ? upsert : gone);
      if (caller && !sees) lost.add(caller.identity.id);
    }
    if (identityId !== undefined && !access.canSee(callerLike(identityId), roomId)) lost.add(identityId);
    for (const id of lost) reads.forget(id, roomId);
    if (!this.host.spawned(roomId)) return;
    const room = await this.host.facet(roomId);
    const connected = await room.connectedCallers();
    const refused = connected.filter((caller) => !access.canSee(caller, roomId)).map((c) => c.identity.id);
    if (refused.length > 0) {
      const reason =
        access.visibility(roomId) === "private"
          ? "You are no longer a member of this private room."
          : "You no longer have access to this room.";
      await room.closeSocketsOf(refused, ACCESS_REVOKED_CODE, reason);
    }
  }
}

/** A stand-in caller for an identity with no socket open: its stored role and memberships decide. */
function callerLike(identityId: string): Caller {
  return { identity: { id: identityId, name: identityId, kind: "user" }, address: "local" };
}
