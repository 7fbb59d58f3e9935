/**
 * The one place a workspace answers "may this caller do <action> here?"
 * (the rules are in shared/permissions.ts). Every REST route reaches it
 * through the overseer's RPC, every room socket through the overseer's
 * `/sub/` gate. A private room the caller may not see is refused with the
 * very 404 an unknown room gets, so nothing tells the two apart; any other
 * refusal is a 403 `forbidden:<reason>` whose message says who can.
 *
 * Also the workspace's people and their roles (people.ts), rooms' members
 * and visibility (room-members.ts) and invitations (invites.ts); named API
 * tokens are managed in workspace-tokens.ts, which asks here who may. The
 * changes to who may see a room are each checked
 * here and then announced through the host, which owns the sockets (closing
 * those that lost the room, updating room lists).
 */

import { AppError, roomNotFound } from "@/server/app-error";
import type { InviteRow } from "@/server/contracts/overseer-api";
import type { Caller } from "@/server/domain/access/caller";
import { tokenIdOf } from "@/server/domain/roles/api-token";
import type { InviteClaims } from "@/server/domain/roles/invite-token";
import { inviteGone, inviterOf } from "@/server/domain/roles/invite-token";
import {
  type AdminConfig,
  adminsConfigured,
  becomesFirstAdmin,
  workspaceRoleOf
} from "@/server/domain/roles/workspace-roles";
import type { RoomRow } from "@/server/domain/rooms/room-rows";
import { API_IDENTITY, authorOf, type IdentityKind } from "@/shared/identity";
import {
  type InviteView,
  MAX_MEMBER_CANDIDATES,
  type MemberCandidates,
  type MemberList,
  type Person,
  type RoomAccess,
  type WorkspaceAccess as WorkspaceAccessInfo
} from "@/shared/members";
import {
  allowedRoomActions,
  allowedWorkspaceActions,
  canSee,
  decideRoom,
  decideWorkspace,
  type RoomAction,
  type RoomStanding,
  type RoomVisibility,
  type Standing,
  type WorkspaceAction,
  type WorkspaceRole
} from "@/shared/permissions";
import type { ApiTokenTable } from "./api-tokens";
import type { InviteTable } from "./invites";
import type { PeopleTable } from "./people";
import type { RoomMembersTable } from "./room-members";

/** What access needs from the overseer. */
export interface AccessHost {
  /** The room's registry row, or undefined when there is no such room. */
  room(roomId: string): RoomRow | undefined;
  /**
   * Who may see the room changed: close the room sockets of everyone who
   * no longer may, and update every room list (`identityId`: only theirs).
   */
  accessChanged(roomId: string, identityId?: string): Promise<void>;
}

interface Tables {
  people: PeopleTable;
  members: RoomMembersTable;
  invites: InviteTable;
  tokens: ApiTokenTable;
}

/** A room the caller may act in, as `requireRoom` found it. */
export interface RoomGrant {
  row: RoomRow;
  who: Standing;
  room: RoomStanding;
}

function refuse(decision: { status: 403 | 404; code: string; message: string }, roomId?: string): AppError {
  if (decision.status === 404) return roomNotFound(roomId ?? "");
  return new AppError(decision.code as "forbidden:not_owner", 403, decision.message);
}

/** A caller that is not one person: the shared anonymous identity, a share viewer. */
function isAnonymous(caller: Caller): boolean {
  return caller.identity.id === API_IDENTITY.id && !caller.admin;
}

/** Someone the people table records: signed-in and Access identities (not tokens, not the API identity). */
function isPerson(caller: Caller): boolean {
  return (
    caller.viewerOf === undefined &&
    caller.identity.id !== API_IDENTITY.id &&
    tokenIdOf(caller.identity.id) === null &&
    (caller.identity.kind === "user" || caller.identity.kind === "access")
  );
}

export class WorkspaceAccess {
  constructor(
    private readonly tables: Tables,
    /**
     * Who the configuration makes admins, and whether this is an open server
     * (no ACCESS_TOKEN, no Access), where the shared anonymous identity is
     * everyone who has not signed in.
     */
    private readonly config: AdminConfig & { openServer: boolean },
    private readonly workspace: () => string,
    private readonly host: AccessHost
  ) {}

  // ── Standing: who is asking ──

  /**
   * The caller's standing in this workspace, recording them as one of its
   * people on the way (the first person of a workspace with no admin
   * becomes its admin). `record: false` only reads (room-list fan-out).
   */
  standing(caller: Caller, { record = true }: { record?: boolean } = {}): Standing {
    if (caller.viewerOf !== undefined) {
      throw new AppError("forbidden:read_only", 403, "A share link can watch its room, nothing else.");
    }
    if (caller.tokenWorkspace !== undefined && caller.tokenWorkspace !== this.workspace()) {
      throw new AppError(
        "forbidden:token_workspace",
        403,
        `This API token belongs to the workspace "${caller.tokenWorkspace}" and acts nowhere else.`
      );
    }
    const { people, tokens } = this.tables;
    const tokenId = tokenIdOf(caller.identity.id);
    if (tokenId !== null) {
      const grant = tokens.grant(tokenId);
      if (!grant) throw new AppError("unauthorized:token", 401, "This API token was revoked.");
      const creatorRole: WorkspaceRole = people.isAdmin(grant.creatorId) ? "admin" : "member";
      return {
        role: workspaceRoleOf({ configuredAdmin: false, stored: null, token: { role: grant.role, creatorRole } }),
        anonymous: false
      };
    }
    const configured = caller.admin === true;
    if (record && isPerson(caller)) {
      people.see(
        { id: caller.identity.id, name: caller.identity.name, kind: caller.identity.kind, configuredAdmin: configured },
        () =>
          becomesFirstAdmin({
            hasAdmin: people.hasAdmin(),
            configured: adminsConfigured(this.config),
            person: true
          })
            ? "admin"
            : "member"
      );
    }
    return {
      role: workspaceRoleOf({ configuredAdmin: configured, stored: people.role(caller.identity.id) }),
      anonymous: isAnonymous(caller)
    };
  }

  #roomStanding(caller: Caller, roomId: string): RoomStanding {
    const owner = this.tables.members.owner(roomId);
    return {
      visibility: this.tables.members.visibility(roomId),
      role: this.tables.members.role(roomId, caller.identity.id),
      unowned: owner === null || (owner === API_IDENTITY.id && this.config.openServer)
    };
  }

  /** May the caller do this in the workspace? Throws the 403 that says who can. */
  requireWorkspace(caller: Caller, action: WorkspaceAction): Standing {
    const who = this.standing(caller);
    const decision = decideWorkspace(action, who);
    if (!decision.ok) throw refuse(decision);
    return who;
  }

  /**
   * May the caller do this in this room? Throws the unknown room's own 404
   * for a room that does not exist or that the caller may not see, and the
   * 403 that says who can for anything else it may not do.
   */
  requireRoom(caller: Caller, roomId: string, action: RoomAction): RoomGrant {
    const row = this.host.room(roomId);
    if (!row) throw roomNotFound(roomId);
    const who = this.standing(caller);
    const room = this.#roomStanding(caller, roomId);
    const decision = decideRoom(action, who, room);
    if (!decision.ok) throw refuse(decision, roomId);
    return { row, who, room };
  }

  /** Whether the caller may do this in the room (never throws). */
  /**
   * Whether the caller keeps a place in a full room (domain/sockets/socket-budget.ts):
   * a member of it, or a workspace admin. Reads only; records no one.
   */
  keepsPlace(caller: Caller, roomId: string): boolean {
    if (caller.viewerOf !== undefined || isAnonymous(caller)) return false;
    if (this.tables.members.role(roomId, caller.identity.id) !== null) return true;
    return this.standing(caller, { record: false }).role === "admin";
  }

  may(caller: Caller, roomId: string, action: RoomAction): boolean {
    try {
      this.requireRoom(caller, roomId, action);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether the room exists for this caller (never throws; reads only). */
  canSee(caller: Caller, roomId: string): boolean {
    try {
      const who = this.standing(caller, { record: false });
      return canSee(who, this.#roomStanding(caller, roomId));
    } catch {
      return false;
    }
  }

  /**
   * A test for "may this caller see room <id>", for filtering many rooms at
   * once (lists, search, status, exports): two queries, whatever the count.
   */
  visibleFilter(caller: Caller): (roomId: string) => boolean {
    let who: Standing;
    try {
      who = this.standing(caller);
    } catch {
      return () => false;
    }
    if (who.role === "admin") return () => true;
    const hidden = this.tables.members.privateRooms();
    if (hidden.size === 0) return () => true;
    const mine = this.tables.members.roomsOf(caller.identity.id);
    return (roomId) => !hidden.has(roomId) || mine.has(roomId);
  }

  visibility(roomId: string): RoomVisibility {
    return this.tables.members.visibility(roomId);
  }

  /** The caller's place in a room and every action it may take there (the UI's enabled controls). */
  roomAccess(caller: Caller, roomId: string): RoomAccess {
    const who = this.standing(caller);
    const room = this.#roomStanding(caller, roomId);
    return {
      visibility: room.visibility,
      role: room.role,
      workspaceRole: who.role,
      may: allowedRoomActions(who, room)
    };
  }

  /** `GET /api/me`: who the caller is in this workspace and what it may do. */
  me(caller: Caller): WorkspaceAccessInfo {
    const who = this.standing(caller);
    const { id, name, kind } = caller.identity;
    return { user: { id, name, kind }, role: who.role, may: allowedWorkspaceActions(who) };
  }

  // ── A room's life ──

  /** A new room: its visibility, and its creator as owner. */
  roomCreated(roomId: string, caller: Caller, visibility: RoomVisibility) {
    this.tables.members.setVisibility(roomId, visibility);
    this.tables.members.add(roomId, memberOf(caller), "owner");
  }

  /** Checks a new room's visibility before anything is made: private rooms need a signed-in creator. */
  requireCreate(caller: Caller, visibility: RoomVisibility) {
    this.requireWorkspace(caller, visibility === "private" ? "room.create_private" : "room.create");
  }

  roomDeleted(roomId: string) {
    this.tables.members.deleteRoom(roomId);
    this.tables.invites.deleteRoom(roomId);
  }

  // ── Members ──

  listMembers(caller: Caller, roomId: string): MemberList {
    this.requireRoom(caller, roomId, "room.read");
    const members = this.tables.members.members(roomId);
    return {
      members,
      hasOwner: members.some((m) => m.role === "owner"),
      me: this.roomAccess(caller, roomId)
    };
  }

  /**
   * Removes someone from a room (owner and admins), or the caller itself
   * (leaving, any member). The owner cannot go until the room is handed over,
   * so a room never ends without one. Their sockets close at once.
   */
  async removeMember(caller: Caller, roomId: string, userId: string): Promise<void> {
    const leaving = userId === caller.identity.id;
    this.requireRoom(caller, roomId, leaving ? "room.leave" : "room.remove_member");
    const target = this.tables.members.member(roomId, userId);
    if (!target) throw new AppError("not_found:member", 404, "That person is not a member of this room.");
    if (target.role === "owner") {
      throw new AppError(
        "conflict:owner_leaving",
        409,
        leaving
          ? "You own this room: hand it over to another member before you leave."
          : "The owner cannot be removed: hand the room over to someone else first."
      );
    }
    this.tables.members.remove(roomId, userId);
    await this.host.accessChanged(roomId, userId);
  }

  /**
   * Adds someone who has used the workspace to the room (owner and admins,
   * as inviting): the way in to a private room without a link. Adding a
   * member again changes nothing.
   */
  async addMember(caller: Caller, roomId: string, userId: string): Promise<MemberList> {
    this.requireRoom(caller, roomId, "room.invite");
    const person = this.tables.people.person(userId);
    if (!person) throw new AppError("not_found:person", 404, "No one with that id has used this workspace.");
    if (this.tables.members.add(roomId, person, "member")) await this.host.accessChanged(roomId, userId);
    return this.listMembers(caller, roomId);
  }

  /** People of the workspace who are not members yet, by name (for adding them; owner and admins). */
  memberCandidates(caller: Caller, roomId: string, query: string): MemberCandidates {
    this.requireRoom(caller, roomId, "room.invite");
    const members = new Set(this.tables.members.members(roomId).map((m) => m.id));
    return { people: this.tables.people.named(query, members, MAX_MEMBER_CANDIDATES) };
  }

  /** Hands the room over to one of its members; the previous owner stays a member. */
  transferOwnership(caller: Caller, roomId: string, userId: string): MemberList {
    this.requireRoom(caller, roomId, "room.transfer");
    const target = this.tables.members.member(roomId, userId);
    if (!target) {
      throw new AppError("not_found:member", 404, "Only a member of this room can be its owner: invite them first.");
    }
    if (target.kind === "api" && target.id === API_IDENTITY.id) {
      throw new AppError(
        "forbidden:anonymous",
        403,
        "A room cannot be handed to the shared API identity: it is everyone who has not signed in."
      );
    }
    this.tables.members.transferOwnership(roomId, userId);
    return this.listMembers(caller, roomId);
  }

  /** Changes who may see a room (checked by the caller's `room.visibility` right). */
  async setVisibility(caller: Caller, roomId: string, visibility: RoomVisibility): Promise<void> {
    this.requireRoom(caller, roomId, "room.visibility");
    if (this.tables.members.visibility(roomId) === visibility) return;
    this.tables.members.setVisibility(roomId, visibility);
    await this.host.accessChanged(roomId);
  }

  /**
   * Someone talked in a workspace room: they become a member, so they keep
   * the room if it is made private later. A no-op for members and for the
   * shared anonymous identity.
   */
  joinOnTalk(talker: { id: string; name: string; kind: IdentityKind }, roomId: string) {
    if (talker.id === API_IDENTITY.id) return;
    if (!this.host.room(roomId) || this.tables.members.visibility(roomId) !== "workspace") return;
    this.tables.members.add(roomId, talker, "member");
  }

  // ── Invitations (tokens are signed by the Worker, routes/members-routes.ts) ──

  createInvite(
    caller: Caller,
    roomId: string,
    invite: { id: string; tokenHash: string; createdAt: number; expiresAt: number; maxUses: number | null }
  ): InviteRow {
    this.requireRoom(caller, roomId, "room.invite");
    return this.tables.invites.create({
      id: invite.id,
      room_id: roomId,
      token_hash: invite.tokenHash,
      created_at: invite.createdAt,
      expires_at: invite.expiresAt,
      max_uses: invite.maxUses,
      createdBy: authorOf(caller.identity)
    });
  }

  listInvites(caller: Caller, roomId: string): InviteRow[] {
    this.requireRoom(caller, roomId, "room.invite");
    return this.tables.invites.active(roomId);
  }

  revokeInvite(caller: Caller, roomId: string, inviteId: string) {
    this.requireRoom(caller, roomId, "room.invite");
    if (!this.tables.invites.delete(roomId, inviteId)) {
      throw new AppError("not_found:invite", 404, "No active invitation with that id on this room.");
    }
  }

  #liveInvite(claims: InviteClaims, tokenHash: string): { invite: InviteRow; row: RoomRow } {
    const invite = this.tables.invites.live(claims.inviteId, claims.roomId, tokenHash);
    const row = invite ? this.host.room(claims.roomId) : undefined;
    if (!invite || !row) throw inviteGone();
    return { invite, row };
  }

  /** What the landing page shows: the room's name and who invited (the link itself is the right to know). */
  viewInvite(caller: Caller, claims: InviteClaims, tokenHash: string): InviteView {
    const { invite, row } = this.#liveInvite(claims, tokenHash);
    this.standing(caller);
    return {
      workspace: this.workspace(),
      roomId: row.id,
      roomName: row.name,
      invitedBy: inviterOf(invite).name,
      expiresAt: invite.expires_at,
      alreadyMember: this.tables.members.role(row.id, caller.identity.id) !== null
    };
  }

  /** Makes the caller a member. Joining again changes nothing and uses nothing up. */
  async acceptInvite(caller: Caller, claims: InviteClaims, tokenHash: string): Promise<RoomRow> {
    const { invite, row } = this.#liveInvite(claims, tokenHash);
    this.requireWorkspace(caller, "invite.accept");
    if (this.tables.members.role(row.id, caller.identity.id) !== null) return row;
    if (!this.tables.invites.use(invite.id)) {
      throw new AppError(
        "conflict:invite_used_up",
        409,
        "This invitation has been used as many times as it allows: ask for a new one."
      );
    }
    this.tables.members.add(row.id, memberOf(caller), "member");
    await this.host.accessChanged(row.id, caller.identity.id);
    return row;
  }

  // ── People and roles ──

  listPeople(caller: Caller): Person[] {
    this.requireWorkspace(caller, "workspace.people");
    return this.tables.people.list();
  }

  /** Makes someone an admin or a member. The workspace always keeps an admin. */
  async setRole(caller: Caller, userId: string, role: WorkspaceRole): Promise<Person[]> {
    this.requireWorkspace(caller, "workspace.people");
    const { people } = this.tables;
    const person = people.list().find((p) => p.id === userId);
    if (!person) throw new AppError("not_found:person", 404, "No one with that id has used this workspace.");
    if (person.configuredAdmin && role !== "admin") {
      throw new AppError(
        "bad_request:body",
        400,
        `${person.name} is an admin by the server's configuration (ADMINS or the Access admin group): change it there.`
      );
    }
    if (people.role(userId) === role) return people.list();
    if (role === "member" && people.role(userId) === "admin" && people.adminCount() <= 1) {
      throw new AppError(
        "conflict:last_admin",
        409,
        "This workspace needs at least one admin: make someone else an admin first."
      );
    }
    people.setRole(userId, role);
    // Admins see every private room: theirs appear or go from room lists and sockets.
    for (const roomId of this.tables.members.privateRooms()) await this.host.accessChanged(roomId, userId);
    return people.list();
  }
}

/** The member row of a caller. */
function memberOf(caller: Caller): { id: string; name: string; kind: IdentityKind } {
  return { id: caller.identity.id, name: caller.identity.name, kind: caller.identity.kind };
}
