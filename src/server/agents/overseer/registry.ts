/**
 * The room registry, in the overseer's SQLite: one row per room, holding
 * what the room list shows (name, activity, message count, preview) as the
 * rooms last reported it. A room exists when its row does; the gate and
 * every RPC check the row, so no URL can conjure a room. The rules for rows
 * (ids, summaries, stale reports) are pure, in domain/rooms/room-rows.ts.
 */

import { roomNotFound } from "@/server/app-error";
import { applyActivity, type RoomActivity, type RoomRow } from "@/server/domain/rooms/room-rows";
import type { SearchableRoom } from "@/server/domain/search/search-plan";

/** SearchableRoom as a row type (SQL cursors take object types, not interfaces). */
type SearchRow = { id: string; name: string; last_active_at: number; message_count: number };

export class RoomRegistry {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS rooms (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_active_at INTEGER NOT NULL,
      message_count INTEGER NOT NULL DEFAULT 0,
      last_preview TEXT,
      activity_seq INTEGER NOT NULL DEFAULT 0
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS rooms_by_activity ON rooms (last_active_at DESC, id)");
  }

  row(id: string): RoomRow | undefined {
    return this.sql.exec<RoomRow>("SELECT * FROM rooms WHERE id = ?", id).toArray()[0];
  }

  /** The room's row; a 404 AppError for a room that does not exist (or no longer does). */
  require(id: string): RoomRow {
    const row = this.row(id);
    if (!row) throw roomNotFound(id);
    return row;
  }

  /** Most recently active first: the room list's order. */
  list(): RoomRow[] {
    return this.sql.exec<RoomRow>("SELECT * FROM rooms ORDER BY last_active_at DESC, id").toArray();
  }

  /** Oldest first: the order an export of the whole workspace writes rooms in. */
  idsByCreation(): string[] {
    return this.sql
      .exec<{ id: string }>("SELECT id FROM rooms ORDER BY created_at, id")
      .toArray()
      .map((r) => r.id);
  }

  /** What a search across rooms plans with (domain/search/search-plan.ts): one room, or every room. */
  searchable(only?: string): SearchableRoom[] {
    const columns = "SELECT id, name, last_active_at, message_count FROM rooms";
    return (
      only === undefined ? this.sql.exec<SearchRow>(columns) : this.sql.exec<SearchRow>(`${columns} WHERE id = ?`, only)
    ).toArray();
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM rooms").one().n;
  }

  /** A new, empty room's row (its activity comes with the room's own reports). */
  insert(id: string, name: string, now: number): RoomRow {
    this.sql.exec(
      `INSERT INTO rooms (id, name, created_at, last_active_at, message_count, last_preview, activity_seq)
       VALUES (?, ?, ?, ?, 0, NULL, 0)`,
      id,
      name,
      now,
      now
    );
    return {
      id,
      name,
      created_at: now,
      last_active_at: now,
      message_count: 0,
      last_preview: null,
      activity_seq: 0
    };
  }

  /** A filled room's count before its first activity report (a report, once in, always wins). */
  seedCount(id: string, messageCount: number) {
    this.sql.exec("UPDATE rooms SET message_count = ? WHERE id = ? AND activity_seq = 0", messageCount, id);
  }

  rename(id: string, name: string) {
    this.sql.exec("UPDATE rooms SET name = ? WHERE id = ?", name, id);
  }

  delete(id: string) {
    this.sql.exec("DELETE FROM rooms WHERE id = ?", id);
  }

  /**
   * Applies a room's activity report: the row before and after it, or null
   * when the room is gone or the report is stale (out of order).
   */
  applyActivity(id: string, activity: RoomActivity): { before: RoomRow; after: RoomRow } | null {
    const before = this.row(id);
    if (!before) return null; // deleted while the report was in flight
    const after = applyActivity(before, activity);
    if (!after) return null;
    this.sql.exec(
      "UPDATE rooms SET message_count = ?, last_preview = ?, last_active_at = ?, activity_seq = ? WHERE id = ?",
      after.message_count,
      after.last_preview,
      after.last_active_at,
      after.activity_seq,
      id
    );
    return { before, after };
  }
}
