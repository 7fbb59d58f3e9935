/**
 * Who may do what: one table, read by the server, which enforces it before
 * doing anything, and by the browser, which hides or disables what a person
 * may not do and says who can. Runtime-safe for the browser bundle.
 *
 * A workspace has admins and members; a room has an owner and members, and
 * is either `workspace` (everyone in the workspace may read it and talk in
 * it) or `private` (its members only). Workspace admins see and manage every
 * room, private ones included.
 *
 * A new action is one row in ROOM_ACTIONS or WORKSPACE_ACTIONS: its name
 * (`area.verb`), the least standing it needs, and what it does in words a
 * person reads in the refusal ("Only the room's owner or a workspace admin
 * can <what>.").
 */
import type { ErrorCode } from "./errors";

export const WORKSPACE_ROLES = ["admin", "member"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

const ROOM_ROLES = ["owner", "member"] as const;
export type RoomRole = (typeof ROOM_ROLES)[number];

export const ROOM_VISIBILITIES = ["workspace", "private"] as const;
export type RoomVisibility = (typeof ROOM_VISIBILITIES)[number];

/**
 * The least standing an action needs:
 * - `anyone`: anyone who reaches the workspace (a room action: anyone who can see the room);
 * - `member`: a member of the room (its owner included);
 * - `owner`: the room's owner, or a workspace admin;
 * - `admin`: a workspace admin.
 */
type Needs = "anyone" | "member" | "owner" | "admin";

interface Rule {
  needs: Needs;
  /** What the action does, as the end of "Only … can <what>." */
  what: string;
  /**
   * Refused to the shared anonymous identity (an open server's callers who
   * have not signed in): it is everyone at once, so it cannot keep a room
   * private or be anyone's member.
   */
  signedIn?: true;
  /** Needs a real owner (or an admin): not granted to everyone by an unowned room. */
  strict?: true;
}

/** Actions on one room. A room the caller may not see answers 404 to every one of them. */
export const ROOM_ACTIONS = {
  "room.read": { needs: "anyone", what: "read this room" },
  /** Send, edit one's own messages, regenerate, stop an answer, typing. */
  "room.talk": { needs: "anyone", what: "write in this room" },
  /** Approve or deny a tool call the assistant asks to make (shared/tools.ts). */
  "room.approve": { needs: "anyone", what: "approve the assistant's tool calls in this room" },
  "room.react": { needs: "anyone", what: "react in this room" },
  "room.upload": { needs: "anyone", what: "add files to this room" },
  /** Pin to the room's memory, change or remove a pin, rebuild its summaries. */
  "room.pin": { needs: "anyone", what: "change this room's memory" },
  "room.fork": { needs: "anyone", what: "fork this room" },
  "room.export": { needs: "anyone", what: "export this room" },
  "room.leave": { needs: "member", what: "leave this room" },
  "room.rename": { needs: "owner", what: "rename this room" },
  "room.settings": { needs: "owner", what: "change this room's settings" },
  "room.tools": { needs: "owner", what: "change this room's MCP servers and tools" },
  "room.personas": { needs: "owner", what: "change this room's personas" },
  "room.budget": { needs: "owner", what: "change this room's budget" },
  "room.visibility": { needs: "owner", what: "change who can see this room", signedIn: true, strict: true },
  "room.share": { needs: "owner", what: "manage this room's share links" },
  "room.files": { needs: "owner", what: "remove other people's files from this room" },
  "room.rebuild_memory": { needs: "owner", what: "rebuild this room's summaries" },
  "room.invite": { needs: "owner", what: "invite people to this room" },
  "room.remove_member": { needs: "owner", what: "remove people from this room" },
  "room.transfer": { needs: "owner", what: "hand this room over to someone else", strict: true },
  "room.delete": { needs: "owner", what: "delete this room" }
} as const satisfies Record<string, Rule>;
export type RoomAction = keyof typeof ROOM_ACTIONS;

/** Actions on the workspace as a whole. */
export const WORKSPACE_ACTIONS = {
  /** The room list, search, status, exports: each shows only the rooms the caller may see. */
  "workspace.read": { needs: "anyone", what: "see this workspace" },
  "room.create": { needs: "anyone", what: "create rooms" },
  "room.create_private": { needs: "anyone", what: "create private rooms", signedIn: true },
  "room.import": { needs: "anyone", what: "import rooms" },
  "invite.accept": { needs: "anyone", what: "join a room by invitation", signedIn: true },
  "workspace.settings": { needs: "admin", what: "change the workspace's settings and budget" },
  "workspace.people": { needs: "admin", what: "manage the workspace's people and roles" },
  "workspace.tokens": { needs: "admin", what: "manage the workspace's API tokens" },
  /** MCP servers every room offers (shared/tools.ts): their addresses and tools are the admins' business. */
  "workspace.tools": { needs: "admin", what: "change the workspace's MCP servers and tools" }
} as const satisfies Record<string, Rule>;
export type WorkspaceAction = keyof typeof WORKSPACE_ACTIONS;

export type Action = RoomAction | WorkspaceAction;

/** Who is asking, in the workspace. */
export interface Standing {
  role: WorkspaceRole;
  /** The one identity every caller shares who has not signed in on an open server. */
  anonymous: boolean;
}

/** The caller's place in one room. */
export interface RoomStanding {
  visibility: RoomVisibility;
  /** The caller's role in the room; null when not a member. */
  role: RoomRole | null;
  /**
   * Nobody in particular owns the room: it was made before owners were
   * recorded and its creator is unknown, or the shared anonymous identity of
   * an open server made it (which is everyone who has not signed in).
   * Anyone in the workspace manages such a room, as anyone could before
   * rooms had owners; only an admin or a real owner changes who sees it or
   * hands it over.
   */
  unowned?: boolean;
}

type Refusal = {
  ok: false;
  /** 404: the room does not exist for this caller (the server answers as for an unknown room). */
  status: 403 | 404;
  code: Extract<ErrorCode, `forbidden:${string}` | "not_found:room">;
  message: string;
};
export type Decision = { ok: true } | Refusal;

const ALLOWED: Decision = { ok: true };

/** Whether the room exists for this caller at all. */
export function canSee(who: Standing, room: RoomStanding): boolean {
  return who.role === "admin" || room.visibility === "workspace" || room.role !== null;
}

function judge(rule: Rule, who: Standing, room: RoomStanding | null): Decision {
  const roomRole = room?.role ?? null;
  if (rule.signedIn && who.anonymous) {
    return {
      ok: false,
      status: 403,
      code: "forbidden:anonymous",
      message: `Sign in to ${rule.what}: everyone who has not signed in shares one identity.`
    };
  }
  switch (rule.needs) {
    case "anyone":
      return ALLOWED;
    case "member":
      return roomRole !== null
        ? ALLOWED
        : {
            ok: false,
            status: 403,
            code: "forbidden:not_member",
            message: `Only members of this room can ${rule.what}.`
          };
    case "owner":
      return roomRole === "owner" || who.role === "admin" || (room?.unowned === true && !rule.strict)
        ? ALLOWED
        : {
            ok: false,
            status: 403,
            code: "forbidden:not_owner",
            message: `Only the room's owner or a workspace admin can ${rule.what}.`
          };
    case "admin":
      return who.role === "admin"
        ? ALLOWED
        : { ok: false, status: 403, code: "forbidden:not_admin", message: `Only a workspace admin can ${rule.what}.` };
  }
}

/** May this caller do this in this room? A room it may not see is a 404, whatever the action. */
export function decideRoom(action: RoomAction, who: Standing, room: RoomStanding): Decision {
  if (!canSee(who, room)) {
    return { ok: false, status: 404, code: "not_found:room", message: "This room does not exist or was deleted." };
  }
  return judge(ROOM_ACTIONS[action], who, room);
}

/** May this caller do this in the workspace? */
export function decideWorkspace(action: WorkspaceAction, who: Standing): Decision {
  return judge(WORKSPACE_ACTIONS[action], who, null);
}

/** Every room action this caller may take (what the browser enables); empty for a room it may not see. */
export function allowedRoomActions(who: Standing, room: RoomStanding): RoomAction[] {
  return (Object.keys(ROOM_ACTIONS) as RoomAction[]).filter((action) => decideRoom(action, who, room).ok);
}

/** Every workspace action this caller may take. */
export function allowedWorkspaceActions(who: Standing): WorkspaceAction[] {
  return (Object.keys(WORKSPACE_ACTIONS) as WorkspaceAction[]).filter((action) => decideWorkspace(action, who).ok);
}

/**
 * The sentence a person reads where an action is disabled: who can do it.
 * The same words as the server's refusal.
 */
export function whoMay(action: Action): string {
  const rule: Rule =
    action in ROOM_ACTIONS ? ROOM_ACTIONS[action as RoomAction] : WORKSPACE_ACTIONS[action as WorkspaceAction];
  switch (rule.needs) {
    case "anyone":
      return rule.signedIn ? `Sign in to ${rule.what}.` : `Anyone in this workspace can ${rule.what}.`;
    case "member":
      return `Only members of this room can ${rule.what}.`;
    case "owner":
      return `Only the room's owner or a workspace admin can ${rule.what}.`;
    case "admin":
      return `Only a workspace admin can ${rule.what}.`;
  }
}
