import { describe, expect, it } from "vitest";
import { socketBudgetRefusal } from "@/server/domain/sockets/socket-budget";
import {
  MAX_SOCKETS_PER_ROOM,
  MAX_SOCKETS_PER_WORKSPACE,
  ROOM_SOCKETS_KEPT_FOR_MEMBERS,
  WORKSPACE_SOCKETS_KEPT_FOR_MEMBERS
} from "@/shared/constants";

const visitorsRoom = MAX_SOCKETS_PER_ROOM - ROOM_SOCKETS_KEPT_FOR_MEMBERS;
const visitorsWorkspace = MAX_SOCKETS_PER_WORKSPACE - WORKSPACE_SOCKETS_KEPT_FOR_MEMBERS;

describe("the workspace's socket budget", () => {
  it("lets visitors fill a room only up to the places kept for its members", () => {
    expect(socketBudgetRefusal({ room: visitorsRoom - 1, workspace: 0 }, false)).toBeNull();
    expect(socketBudgetRefusal({ room: visitorsRoom, workspace: 0 }, false)).toMatch(/kept for its members/);
    expect(socketBudgetRefusal({ room: visitorsRoom, workspace: 0 }, true)).toBeNull();
    expect(socketBudgetRefusal({ room: MAX_SOCKETS_PER_ROOM - 1, workspace: 0 }, true)).toBeNull();
    expect(socketBudgetRefusal({ room: MAX_SOCKETS_PER_ROOM, workspace: 0 }, true)).toMatch(/the most it takes/);
  });

  it("holds every room of a workspace to one budget, with its own part kept for members", () => {
    expect(socketBudgetRefusal({ room: 0, workspace: visitorsWorkspace - 1 }, false)).toBeNull();
    expect(socketBudgetRefusal({ room: 0, workspace: visitorsWorkspace }, false)).toMatch(/workspace is full/);
    expect(socketBudgetRefusal({ room: 0, workspace: visitorsWorkspace }, true)).toBeNull();
    expect(socketBudgetRefusal({ room: 0, workspace: MAX_SOCKETS_PER_WORKSPACE }, true)).toMatch(/workspace has/);
  });
});
