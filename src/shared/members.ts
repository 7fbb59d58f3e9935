/**
 * Wire types of roles, room members, invitations, API tokens and the
 * workspace's people. Who may do what is in shared/permissions.ts.
 * Runtime-safe for the browser bundle.
 */
import { z } from "zod";
import { MAX_AUTHOR_LENGTH } from "./constants";
import { DisplayName, type IdentityKind, type MessageAuthor } from "./identity";
import {
  type RoomAction,
  type RoomRole,
  type RoomVisibility,
  WORKSPACE_ROLES,
  type WorkspaceAction,
  type WorkspaceRole
} from "./permissions";

/**
 * The close code of a room socket whose person may no longer see the room
 * (removed, or the room made private): terminal for the client, which says
 * why instead of reconnecting (the gate would refuse it with 4404 anyway).
 */
export const ACCESS_REVOKED_CODE = 4403;

/** Invite ids are ours (`in_` and a UUID); anything else is not one. */
export const INVITE_ID_PATTERN = /^in_[0-9a-f-]{36}$/;
/** An invitation token is a compact JWT; anything longer is not one of ours. */
export const MAX_INVITE_TOKEN_LENGTH = 1024;
/** Active invitations per room: enough for every audience, small enough to list at once. */
export const MAX_INVITES_PER_ROOM = 50;
/** Active API tokens per workspace. */
export const MAX_API_TOKENS = 100;
/** The longest an invitation may live (30 days), and how long one lives when nobody says (7 days). */
const MAX_INVITE_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
export const DEFAULT_INVITE_LIFETIME_SECONDS = 7 * 24 * 60 * 60;
const MAX_INVITE_USES = 1000;

// ── A room's members ──

export interface RoomMember {
  /** The identity id (workspace members see ids, as they see authors'). */
  id: string;
  name: string;
  kind: IdentityKind;
  role: RoomRole;
  /** Epoch ms. */
  joinedAt: number;
}

/** The caller's own place in a room, and every room action it may take (the UI enables only these). */
export interface RoomAccess {
  visibility: RoomVisibility;
  role: RoomRole | null;
  workspaceRole: WorkspaceRole;
  may: RoomAction[];
}

/** `GET /api/rooms/:id/members`. */
export interface MemberList {
  members: RoomMember[];
  /** False for a room made before owners were recorded whose creator is unknown: admins manage it. */
  hasOwner: boolean;
  me: RoomAccess;
}

/** `POST /api/rooms/:id/owner` (hand the room over to a member) and `POST /api/rooms/:id/members` (add someone). */
export const UserIdBody = z.strictObject({
  userId: z.string({ error: "userId must be a string" }).min(1, "userId must not be empty").max(128)
});
export type UserIdBody = z.infer<typeof UserIdBody>;

/** How many people `GET /api/rooms/:id/members/candidates` answers at most. */
export const MAX_MEMBER_CANDIDATES = 20;

/** `GET /api/rooms/:id/members/candidates?q=`: who can be added (people of the workspace, not members yet). */
export const MemberCandidatesQuery = z.strictObject({
  q: z
    .string({ error: "q must be a string" })
    .max(MAX_AUTHOR_LENGTH, `q must be at most ${MAX_AUTHOR_LENGTH} characters`)
    .default("")
});

export interface MemberCandidates {
  people: Array<{ id: string; name: string }>;
}

// ── Invitations ──

export const CreateInviteBody = z.strictObject({
  /** Seconds until the link stops working (default 7 days, at most 30). */
  expiresIn: z
    .number({ error: "expiresIn must be a number of seconds" })
    .int("expiresIn must be a whole number of seconds")
    .min(60, "expiresIn must be at least 60 seconds")
    .max(MAX_INVITE_LIFETIME_SECONDS, `expiresIn must be at most ${MAX_INVITE_LIFETIME_SECONDS} seconds (30 days)`)
    .optional(),
  /** How many people may join with it; absent means no limit until it expires. */
  maxUses: z
    .number({ error: "maxUses must be a number" })
    .int("maxUses must be a whole number")
    .min(1, "maxUses must be at least 1")
    .max(MAX_INVITE_USES, `maxUses must be at most ${MAX_INVITE_USES}`)
    .optional()
});
export type CreateInviteBody = z.infer<typeof CreateInviteBody>;

/** One active invitation, as the room's owner and admins see it. */
export interface InviteLink {
  id: string;
  roomId: string;
  /** `/invite/<token>`: relative, so it names whichever host serves the app. */
  path: string;
  createdAt: number;
  expiresAt: number;
  maxUses: number | null;
  uses: number;
  createdBy: MessageAuthor;
}

/** `POST /api/rooms/:id/invites`: the link, its token, and its absolute URL. */
export interface CreatedInvite extends InviteLink {
  token: string;
  url: string;
}

export interface InviteList {
  invites: InviteLink[];
}

/** `GET /api/invites/:token`: what the landing page shows before joining. */
export interface InviteView {
  workspace: string;
  roomId: string;
  roomName: string;
  invitedBy: string;
  expiresAt: number;
  /** The visitor is already in (a member, or an admin): joining changes nothing. */
  alreadyMember: boolean;
}

/** `POST /api/invites/:token/accept`. */
export interface AcceptedInvite {
  workspace: string;
  roomId: string;
  roomName: string;
}

// ── The workspace's people and API tokens ──

/** Someone who has used this workspace. */
export interface Person {
  id: string;
  name: string;
  kind: IdentityKind;
  role: WorkspaceRole;
  /** Admin by the server's configuration (ADMINS, the Access admin group): no one can demote them here. */
  configuredAdmin: boolean;
  firstSeen: number;
  lastSeen: number;
}

export interface PeopleList {
  people: Person[];
}

export const SetRoleBody = z.strictObject({
  role: z.enum(WORKSPACE_ROLES, { error: `role must be one of ${WORKSPACE_ROLES.join(", ")}` })
});
export type SetRoleBody = z.infer<typeof SetRoleBody>;

/** `GET /api/me` (per workspace): who the caller is here and what it may do. */
export interface WorkspaceAccess {
  user: { id: string; name: string; kind: IdentityKind };
  role: WorkspaceRole;
  may: WorkspaceAction[];
}

export const CreateApiTokenBody = z.strictObject({
  name: DisplayName,
  /** At most the creator's own role (default member). */
  role: z.enum(WORKSPACE_ROLES, { error: `role must be one of ${WORKSPACE_ROLES.join(", ")}` }).optional()
});
export type CreateApiTokenBody = z.infer<typeof CreateApiTokenBody>;

export interface ApiTokenInfo {
  id: string;
  name: string;
  role: WorkspaceRole;
  /** The identity the token acts as (`token:<id>`): its messages carry this id. */
  identityId: string;
  createdAt: number;
  createdBy: MessageAuthor;
  /** Epoch ms of its last use (to the minute); null when never used. */
  lastUsedAt: number | null;
}

/** Answered once, when the token is made: the only time its secret is shown. */
export interface CreatedApiToken extends ApiTokenInfo {
  token: string;
}

export interface ApiTokenList {
  tokens: ApiTokenInfo[];
}
