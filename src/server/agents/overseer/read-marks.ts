/**
 * Read marks, overseer side: how far each identity has read each room, in
 * the overseer's SQLite (one row per identity and room they have read), so
 * a person's unread counts follow them across tabs, devices and restarts.
 * Rooms report positions they computed from their own exact count
 * (room/room-reads.ts); nothing here takes a position from a client.
 */

import { advanceMark } from "@/server/domain/rooms/read-positions";
import type { ReadMark } from "@/shared/unread";

/** The tag of an identity's room-list sockets (identity ids are at most 128 characters; tags may have 256). */
export function readerTag(identityId: string): string {
  return `reader:${identityId}`;
}

type Row = { room_id: string; count: number; message_id: string | null };

const toMark = (row: Row): ReadMark => ({ roomId: row.room_id, count: row.count, messageId: row.message_id });

export class ReadMarksTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS read_marks (
      identity_id TEXT NOT NULL,
      room_id TEXT NOT NULL,
      count INTEGER NOT NULL,
      message_id TEXT,
      read_at INTEGER NOT NULL,
      PRIMARY KEY (identity_id, room_id)
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS read_marks_by_room ON read_marks (room_id)");
  }

  /** One identity's marks: what its list sockets are sent on connect. */
  forIdentity(identityId: string): ReadMark[] {
    return this.sql
      .exec<Row>("SELECT room_id, count, message_id FROM read_marks WHERE identity_id = ?", identityId)
      .toArray()
      .map(toMark);
  }

  /** Moves a mark forward; returns it when it moved, null when it did not (marks never go back). */
  advance(identityId: string, next: ReadMark, now = Date.now()): ReadMark | null {
    const row = this.sql
      .exec<Row>(
        "SELECT room_id, count, message_id FROM read_marks WHERE identity_id = ? AND room_id = ?",
        identityId,
        next.roomId
      )
      .toArray()[0];
    const moved = advanceMark(row && toMark(row), next);
    if (!moved) return null;
    this.sql.exec(
      `INSERT INTO read_marks (identity_id, room_id, count, message_id, read_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (identity_id, room_id) DO UPDATE SET count = excluded.count, message_id = excluded.message_id,
         read_at = excluded.read_at`,
      identityId,
      moved.roomId,
      moved.count,
      moved.messageId,
      now
    );
    return moved;
  }

  /**
   * The room's path got shorter (an edit replaced a message and what
   * followed it): marks past `max` come back to it, so what is written on
   * the new path counts as unread. Returns the marks that moved, by identity.
   */
  clampRoom(roomId: string, max: number): Array<{ identityId: string; mark: ReadMark }> {
    const rows = this.sql
      .exec<Row & { identity_id: string }>(
        `UPDATE read_marks SET count = ? WHERE room_id = ? AND count > ?
         RETURNING identity_id, room_id, count, message_id`,
        max,
        roomId,
        max
      )
      .toArray();
    return rows.map((row) => ({ identityId: row.identity_id, mark: toMark(row) }));
  }

  /** One identity's mark in one room: it may no longer see the room, so its unread never mentions it. */
  forget(identityId: string, roomId: string) {
    this.sql.exec("DELETE FROM read_marks WHERE identity_id = ? AND room_id = ?", identityId, roomId);
  }

  forgetRoom(roomId: string) {
    this.sql.exec("DELETE FROM read_marks WHERE room_id = ?", roomId);
  }
}
