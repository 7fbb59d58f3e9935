/**
 * Read marks, room side: a reader's socket says it shows the room's newest
 * message (`rooms_read`); the room turns that into a position in its own
 * exact count (domain/rooms/read-positions.ts), under the identity that opened the socket,
 * and tells its overseer, which keeps the marks (overseer/read-marks.ts).
 * Reports are coalesced like activity reports: at most one call to the
 * overseer per room per interval, however many readers, tabs and frames, so
 * a flood of `rooms_read` costs the room a scan of its window per frame and
 * the overseer nothing more (no rate limit of its own is needed).
 */
import type { Connection, WSMessage } from "agents";
import type { UIMessage } from "ai";
import { callerOf } from "@/server/domain/access/caller";
import { furthest, type PendingRead, readPosition } from "@/server/domain/rooms/read-positions";
import { ThrottledReports } from "@/server/domain/rooms/throttled-reports";
import { RoomClientFrame } from "@/shared/protocol";
import { parseJson } from "./frames";
import type { OverseerLink } from "./overseer-link";

interface ReadsHost {
  /** The room's in-memory window, oldest first. */
  messages(): readonly UIMessage[];
  /** The room's exact count of the messages people see (its current path, room/activity.ts), as the room list shows it. */
  messageCount(): number;
}

export class RoomReads {
  #pending = new Map<string, PendingRead>();
  #reports: ThrottledReports;

  constructor(
    private readonly room: ReadsHost,
    private readonly report: (reads: PendingRead[]) => Promise<void>,
    waitUntil: (promise: Promise<unknown>) => void
  ) {
    this.#reports = new ThrottledReports(() => this.#flush(), waitUntil);
  }

  /** Takes a `rooms_read` frame; false for any other frame (presence handles those). */
  receive(connection: Connection, message: WSMessage): boolean {
    if (typeof message !== "string" || !message.includes('"rooms_read"')) return false;
    const frame = RoomClientFrame.safeParse(parseJson(message));
    if (!frame.success || frame.data.type !== "rooms_read") return false;
    const caller = callerOf(connection);
    if (!caller) return true; // a socket that did not come through the Worker reads for nobody
    const identityId = caller.identity.id;
    const position = readPosition(this.room.messages(), this.room.messageCount(), frame.data.messageId);
    this.#pending.set(identityId, furthest(this.#pending.get(identityId), { identityId, ...position }));
    this.#reports.request();
    return true;
  }

  async #flush() {
    const reads = [...this.#pending.values()];
    this.#pending.clear();
    if (reads.length > 0) await this.report(reads);
  }
}

/** Sends a room's read positions to its overseer (best effort: a reader's client asks again while it sees unread). */
export async function reportReadsToOverseer(overseer: OverseerLink, roomId: string, reads: PendingRead[]) {
  try {
    await overseer.call((o) => o.recordReads(roomId, reads));
  } catch (error) {
    console.warn("[ChatRoom] failed to report read marks:", error);
  }
}
