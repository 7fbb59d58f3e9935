/**
 * The overseer's copy of what each room last said about itself (status,
 * sockets, storage, tokens today), kept beside the registry so a workspace's
 * status is one query over the overseer's own SQLite: no room is woken.
 */
import type { RoomLive, WorkspaceStatus } from "../../../shared/introspection";
import { type LiveRow, summarizeWorkspace, utcDay } from "../../domain/introspection";

export class LiveStatusTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS room_live (
      room_id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      activity TEXT,
      sockets INTEGER NOT NULL,
      storage_bytes INTEGER NOT NULL,
      tokens_day TEXT NOT NULL,
      tokens_today INTEGER NOT NULL
    )`);
  }

  /** Called only with reports the registry accepted (not stale). */
  record(roomId: string, live: RoomLive) {
    this.sql.exec(
      `INSERT INTO room_live (room_id, status, activity, sockets, storage_bytes, tokens_day, tokens_today)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (room_id) DO UPDATE SET status = excluded.status, activity = excluded.activity,
         sockets = excluded.sockets, storage_bytes = excluded.storage_bytes, tokens_day = excluded.tokens_day,
         tokens_today = excluded.tokens_today`,
      roomId,
      live.status,
      live.activity,
      live.sockets,
      live.storageBytes,
      live.day,
      live.tokensToday
    );
  }

  forget(roomId: string) {
    this.sql.exec("DELETE FROM room_live WHERE room_id = ?", roomId);
  }

  /** Tokens every room of the workspace reported for today. */
  tokensToday(now = Date.now()): number {
    const row = this.sql
      .exec<{ n: number | null }>("SELECT SUM(tokens_today) AS n FROM room_live WHERE tokens_day = ?", utcDay(now))
      .toArray()[0];
    return row?.n ?? 0;
  }

  status(workspace: string, opts: { roomListSockets: number; dailyTokenBudget: number }): WorkspaceStatus {
    const rows = this.sql
      .exec<LiveRow>(
        `SELECT rooms.id AS id, rooms.name AS name, room_live.status AS status, room_live.sockets AS sockets,
           room_live.storage_bytes AS storage_bytes, room_live.tokens_day AS tokens_day,
           room_live.tokens_today AS tokens_today
         FROM rooms LEFT JOIN room_live ON room_live.room_id = rooms.id`
      )
      .toArray();
    return summarizeWorkspace(workspace, rows, { today: utcDay(), ...opts });
  }
}
