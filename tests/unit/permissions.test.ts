import { describe, expect, it } from "vitest";
import {
  allowedRoomActions,
  allowedWorkspaceActions,
  decideRoom,
  decideWorkspace,
  ROOM_ACTIONS,
  type RoomAction,
  type RoomStanding,
  type Standing,
  WORKSPACE_ACTIONS,
  type WorkspaceAction,
  whoMay
} from "@/shared/permissions";

const admin: Standing = { role: "admin", anonymous: false };
const member: Standing = { role: "member", anonymous: false };
const anonymous: Standing = { role: "member", anonymous: true };

const roomActions = Object.keys(ROOM_ACTIONS) as RoomAction[];
const workspaceActions = Object.keys(WORKSPACE_ACTIONS) as WorkspaceAction[];
const OWNER_ACTIONS: RoomAction[] = [
  "room.rename",
  "room.settings",
  "room.personas",
  "room.budget",
  "room.visibility",
  "room.share",
  "room.files",
  "room.rebuild_memory",
  "room.invite",
  "room.remove_member",
  "room.transfer",
  "room.delete"
];
const MEMBER_ACTIONS: RoomAction[] = [
  "room.read",
  "room.talk",
  "room.approve",
  "room.react",
  "room.upload",
  "room.pin",
  "room.fork",
  "room.export"
];

describe("who may do what in a room", () => {
  const privateOutsider: RoomStanding = { visibility: "private", role: null };

  it("a private room does not exist for an outsider: every action is the unknown room's 404", () => {
    for (const action of roomActions) {
      const decision = decideRoom(action, member, privateOutsider);
      expect(decision, action).toMatchObject({ ok: false, status: 404, code: "not_found:room" });
    }
    expect(allowedRoomActions(member, privateOutsider)).toEqual([]);
    // The anonymous identity is an outsider too.
    expect(decideRoom("room.read", anonymous, privateOutsider)).toMatchObject({ status: 404 });
  });

  it("admins see and manage every room, private ones included", () => {
    for (const action of roomActions.filter((a) => a !== "room.leave")) {
      expect(decideRoom(action, admin, privateOutsider).ok, action).toBe(true);
    }
    // Leaving needs membership, which an admin who never joined does not have.
    expect(decideRoom("room.leave", admin, privateOutsider)).toMatchObject({
      status: 403,
      code: "forbidden:not_member"
    });
  });

  it("the owner manages the room; a member talks but may not manage", () => {
    for (const visibility of ["workspace", "private"] as const) {
      const owner: RoomStanding = { visibility, role: "owner" };
      const roomMember: RoomStanding = { visibility, role: "member" };
      for (const action of roomActions) expect(decideRoom(action, member, owner).ok, action).toBe(true);
      for (const action of MEMBER_ACTIONS) expect(decideRoom(action, member, roomMember).ok, action).toBe(true);
      expect(decideRoom("room.leave", member, roomMember).ok).toBe(true);
      for (const action of OWNER_ACTIONS) {
        const decision = decideRoom(action, member, roomMember);
        expect(decision, action).toMatchObject({ ok: false, status: 403, code: "forbidden:not_owner" });
        expect(decision.ok ? "" : decision.message).toMatch(/^Only the room's owner or a workspace admin can /);
      }
    }
  });

  it("anyone in the workspace reads and talks in a workspace room, and manages nothing", () => {
    const passerBy: RoomStanding = { visibility: "workspace", role: null };
    expect(allowedRoomActions(member, passerBy)).toEqual(MEMBER_ACTIONS);
    expect(decideRoom("room.leave", member, passerBy)).toMatchObject({ status: 403, code: "forbidden:not_member" });
  });

  it("the shared anonymous identity may not make a room private, even a room it owns", () => {
    const owned: RoomStanding = { visibility: "workspace", role: "owner" };
    const decision = decideRoom("room.visibility", anonymous, owned);
    expect(decision).toMatchObject({ ok: false, status: 403, code: "forbidden:anonymous" });
    expect(decision.ok ? "" : decision.message).toMatch(/^Sign in to change who can see this room/);
    expect(decideRoom("room.rename", anonymous, owned).ok).toBe(true);
  });

  it("an unowned room (creator unknown, or the shared anonymous identity's) is managed by anyone, as before owners", () => {
    const unowned: RoomStanding = { visibility: "workspace", role: null, unowned: true };
    for (const action of OWNER_ACTIONS.filter((a) => a !== "room.visibility" && a !== "room.transfer")) {
      expect(decideRoom(action, member, unowned).ok, action).toBe(true);
    }
    // Who sees it and who owns it stay an admin's (or a real owner's) decision.
    expect(decideRoom("room.visibility", member, unowned)).toMatchObject({ code: "forbidden:not_owner" });
    expect(decideRoom("room.transfer", member, unowned)).toMatchObject({ code: "forbidden:not_owner" });
    expect(decideRoom("room.transfer", admin, unowned).ok).toBe(true);
  });

  it("says every refusal in a sentence that names who can, the same one the UI shows", () => {
    const roomMember: RoomStanding = { visibility: "workspace", role: "member" };
    for (const action of OWNER_ACTIONS.filter((a) => a !== "room.visibility")) {
      const decision = decideRoom(action, member, roomMember);
      expect(decision.ok ? null : decision.message).toBe(whoMay(action));
    }
    const decision = decideWorkspace("workspace.settings", member);
    expect(decision.ok ? null : decision.message).toBe(whoMay("workspace.settings"));
    expect(whoMay("workspace.settings")).toBe("Only a workspace admin can change the workspace's settings and budget.");
  });
});

describe("who may do what in a workspace", () => {
  it("admins do everything; members create rooms but not settings, people, tokens or MCP servers", () => {
    expect(allowedWorkspaceActions(admin)).toEqual(workspaceActions);
    expect(allowedWorkspaceActions(member)).toEqual([
      "workspace.read",
      "room.create",
      "room.create_private",
      "room.import",
      "invite.accept"
    ]);
    for (const action of ["workspace.settings", "workspace.people", "workspace.tokens", "workspace.tools"] as const) {
      expect(decideWorkspace(action, member), action).toMatchObject({
        ok: false,
        status: 403,
        code: "forbidden:not_admin"
      });
    }
  });

  it("the anonymous identity cannot create private rooms nor accept invitations", () => {
    expect(decideWorkspace("room.create", anonymous).ok).toBe(true);
    expect(decideWorkspace("room.create_private", anonymous)).toMatchObject({ code: "forbidden:anonymous" });
    expect(decideWorkspace("invite.accept", anonymous)).toMatchObject({ code: "forbidden:anonymous" });
  });
});
