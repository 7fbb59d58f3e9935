/**
 * Whether a workspace takes one more room socket, decided at the overseer's
 * gate before the socket is accepted (pure; overseer/workspace-rooms.ts asks).
 *
 * Every room socket of a workspace lives on one overseer, so the workspace
 * has one budget of them, and each room a share of it. In both, a part is
 * kept for people who belong: a room's members (who wrote in it, or were
 * let in) and the workspace's admins. Everyone else (readers of a workspace
 * room, share-link viewers, the anonymous) fills only the rest, so however
 * many identities or addresses someone holds, the people who talk in a room
 * still get in. The room's own finer caps (per identity, per address, its
 * viewers' half) stay with the room (agents/room/presence.ts).
 */
import {
  MAX_SOCKETS_PER_ROOM,
  MAX_SOCKETS_PER_WORKSPACE,
  ROOM_SOCKETS_KEPT_FOR_MEMBERS,
  WORKSPACE_SOCKETS_KEPT_FOR_MEMBERS
} from "@/shared/constants";

export interface SocketCounts {
  /** Sockets open to this room now. */
  room: number;
  /** Sockets open to any room of the workspace, or its room list, now. */
  workspace: number;
}

/** Why the socket is refused (a sentence for the person), or null to let it in. */
export function socketBudgetRefusal(open: SocketCounts, belongs: boolean): string | null {
  const roomLimit = belongs ? MAX_SOCKETS_PER_ROOM : MAX_SOCKETS_PER_ROOM - ROOM_SOCKETS_KEPT_FOR_MEMBERS;
  if (open.room >= roomLimit) {
    return belongs
      ? `This room has ${MAX_SOCKETS_PER_ROOM} connections open, the most it takes.`
      : `This room is full for visitors: its last ${ROOM_SOCKETS_KEPT_FOR_MEMBERS} places are kept for its members.`;
  }
  const workspaceLimit = belongs
    ? MAX_SOCKETS_PER_WORKSPACE
    : MAX_SOCKETS_PER_WORKSPACE - WORKSPACE_SOCKETS_KEPT_FOR_MEMBERS;
  if (open.workspace >= workspaceLimit) {
    return belongs
      ? `This workspace has ${MAX_SOCKETS_PER_WORKSPACE} connections open, the most it takes.`
      : "This workspace is full for visitors: its last places are kept for rooms' members.";
  }
  return null;
}
