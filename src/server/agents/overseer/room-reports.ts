/**
 * What rooms report to their overseer, pushed so that listing rooms never
 * wakes one: activity (count, preview, live status) after each change, and
 * the positions their readers reached (read marks). Stale reports and
 * reports of deleted rooms are dropped; a moved read mark goes to its own
 * identity's list sockets, every tab of theirs, and to no one else.
 */
import type { WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import type { PendingRead } from "@/server/domain/rooms/read-positions";
import type { RoomActivity, RoomRow, Talker } from "@/server/domain/rooms/room-rows";
import type { OverseerFrame } from "@/shared/protocol";
import type { ReadMark } from "@/shared/unread";
import type { WorkspaceBudgetFigures } from "./budget-figures";
import type { LiveStatusTable } from "./live-status";
import type { ReadMarksTable } from "./read-marks";
import type { RoomRegistry } from "./registry";

/** What the reports need of their overseer. */
export interface RoomReportsHost {
  registry: RoomRegistry;
  live: Pick<LiveStatusTable, "record">;
  reads: Pick<ReadMarksTable, "advance" | "clampRoom">;
  budget: Pick<WorkspaceBudgetFigures, "afterReport">;
  /** A room changed: to the list sockets of everyone who may see it (overseer/room-lists.ts). */
  announce(row: RoomRow): void;
  /** To one identity's list sockets only. */
  sendToReader(identityId: string, frame: OverseerFrame): void;
  waitUntil(promise: Promise<unknown>): void;
  /** Someone wrote in a room: they become its member (overseer/workspace-access.ts `joinOnTalk`). */
  talked(roomId: string, talker: Talker): void;
}

export class RoomReports {
  constructor(private readonly host: RoomReportsHost) {}

  /**
   * A room's activity after its transcript changed; answers the workspace's
   * budget figure, which the room keeps for its turns.
   */
  activity(id: string, activity: RoomActivity): WorkspaceBudgetFigure {
    for (const talker of activity.talkers ?? []) this.host.talked(id, talker);
    return this.host.budget.afterReport(
      id,
      () => this.#applyActivity(id, activity),
      (p) => this.host.waitUntil(p)
    );
  }

  #applyActivity(id: string, activity: RoomActivity) {
    const applied = this.host.registry.applyActivity(id, activity);
    if (!applied) return; // deleted while the report was in flight, or stale
    const { before: row, after: next } = applied;
    if (activity.live) this.host.live.record(id, activity.live);
    if (next.message_count < row.message_count) {
      // An edit shortened the path: whoever had read past its new end has not read the new version.
      for (const { identityId, mark } of this.host.reads.clampRoom(id, Math.max(0, next.message_count - 1))) {
        this.#sendMarks(identityId, [mark]);
      }
    }
    this.host.announce(next);
  }

  /** The positions a room's readers reached, computed from the room's own count. */
  reads(roomId: string, reads: PendingRead[]): void {
    if (!this.host.registry.row(roomId)) return; // deleted while the report was in flight
    for (const { identityId, count, messageId } of reads) {
      const moved = this.host.reads.advance(identityId, { roomId, count, messageId });
      if (moved) this.#sendMarks(identityId, [moved]);
    }
  }

  /** To that identity's own list sockets (every tab of theirs), never anyone else's. */
  #sendMarks(identityId: string, marks: ReadMark[]) {
    this.host.sendToReader(identityId, { type: "read_marks", marks, replace: false });
  }
}
