/**
 * The overseer's copy of what each room last said about itself (status,
 * sockets, storage, tokens today), kept beside the registry so a workspace's
 * status is one query over the overseer's own SQLite: no room is woken.
 * Today's total is kept as a running sum beside the table, so answering it
 * with every activity report (rooms keep a copy for their budget checks,
 * domain/budgets/workspace-budget-cache.ts) costs the same in a workspace of 1,000
 * rooms as in one of 2.
 */

import { type LiveRow, summarizeWorkspace, utcDay } from "@/server/domain/rooms/workspace-status";
import type { RoomLive, WorkspaceStatus } from "@/shared/introspection";

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

  /** Today's total, `day` "YYYY-MM-DD": summed once per day (or after a restart), then kept by every write. */
  #today: { day: string; total: number } | null = null;

  #reported(roomId: string): { tokens_day: string; tokens_today: number } | undefined {
    return this.sql
      .exec<{ tokens_day: string; tokens_today: number }>(
        "SELECT tokens_day, tokens_today FROM room_live WHERE room_id = ?",
        roomId
      )
      .toArray()[0];
  }

  /** Moves the running total by a room's row going from `before` to `after`. */
  #move(before: { day: string; tokens: number } | null, after: { day: string; tokens: number } | null) {
    const today = this.#today;
    if (!today) return;
    if (before?.day === today.day) today.total -= before.tokens;
    if (after?.day === today.day) today.total += after.tokens;
  }

  /** Called only with reports the registry accepted (not stale). */
  record(roomId: string, live: RoomLive) {
    const before = this.#today ? this.#reported(roomId) : undefined;
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
    this.#move(before ? { day: before.tokens_day, tokens: before.tokens_today } : null, {
      day: live.day,
      tokens: live.tokensToday
    });
  }

  forget(roomId: string) {
    const before = this.#today ? this.#reported(roomId) : undefined;
    this.sql.exec("DELETE FROM room_live WHERE room_id = ?", roomId);
    this.#move(before ? { day: before.tokens_day, tokens: before.tokens_today } : null, null);
  }

  /** Tokens every room of the workspace reported for today. */
  tokensToday(now = Date.now()): number {
    const day = utcDay(now);
    if (this.#today?.day !== day) {
      const row = this.sql
        .exec<{ n: number | null }>("SELECT SUM(tokens_today) AS n FROM room_live WHERE tokens_day = ?", day)
        .toArray()[0];
      this.#today = { day, total: row?.n ?? 0 };
    }
    return this.#today.total;
  }

  /** Over the rooms `include` lets through: a caller's status never counts rooms it may not see. */
  status(
    workspace: string,
    opts: { roomListSockets: number; dailyTokenBudget: number },
    include: (roomId: string) => boolean = () => true
  ): WorkspaceStatus {
    const rows = this.sql
      .exec<LiveRow>(
        `SELECT rooms.id AS id, rooms.name AS name, room_live.status AS status, room_live.sockets AS sockets,
           room_live.storage_bytes AS storage_bytes, room_live.tokens_day AS tokens_day,
           room_live.tokens_today AS tokens_today
         FROM rooms LEFT JOIN room_live ON room_live.room_id = rooms.id`
      )
      .toArray()
      .filter((row) => include(row.id));
    return summarizeWorkspace(workspace, rows, { today: utcDay(), ...opts });
  }
}
