/**
 * Share links of a workspace's rooms, in the overseer's SQLite: one row per
 * active link, holding the SHA-256 of its token, never the token. A link
 * is good while its row exists, matches the token and has not expired;
 * revoking deletes the row, so the very next open is refused.
 */
import type { MessageAuthor } from "../../../shared/identity";

export type ShareRow = {
  id: string;
  room_id: string;
  token_hash: string;
  /** Epoch ms. */
  created_at: number;
  /** Epoch ms, or null for a link that lasts until revoked. */
  expires_at: number | null;
  /** JSON of the MessageAuthor who made it. */
  created_by: string;
};

export class ShareTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS shares (
      id TEXT PRIMARY KEY,
      room_id TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER,
      created_by TEXT NOT NULL
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS shares_by_room ON shares (room_id, created_at)");
  }

  insert(row: Omit<ShareRow, "created_by"> & { createdBy: MessageAuthor }) {
    this.sql.exec(
      "INSERT INTO shares (id, room_id, token_hash, created_at, expires_at, created_by) VALUES (?, ?, ?, ?, ?, ?)",
      row.id,
      row.room_id,
      row.token_hash,
      row.created_at,
      row.expires_at,
      JSON.stringify(row.createdBy)
    );
  }

  /** A room's links that still work at `now`, oldest first. */
  active(roomId: string, now: number): ShareRow[] {
    return this.sql
      .exec<ShareRow>(
        "SELECT * FROM shares WHERE room_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at, id",
        roomId,
        now
      )
      .toArray();
  }

  get(id: string): ShareRow | null {
    return this.sql.exec<ShareRow>("SELECT * FROM shares WHERE id = ?", id).toArray()[0] ?? null;
  }

  /** Whether there was such a link on that room. */
  delete(roomId: string, id: string): boolean {
    return this.sql.exec("DELETE FROM shares WHERE id = ? AND room_id = ?", id, roomId).rowsWritten > 0;
  }

  deleteRoom(roomId: string) {
    this.sql.exec("DELETE FROM shares WHERE room_id = ?", roomId);
  }

  /** Drops links that expired by `now` (they already refuse every open). */
  deleteExpired(now: number) {
    this.sql.exec("DELETE FROM shares WHERE expires_at IS NOT NULL AND expires_at <= ?", now);
  }
}

export function authorOfRow(row: ShareRow): MessageAuthor {
  try {
    return JSON.parse(row.created_by) as MessageAuthor;
  } catch {
    return { id: "unknown", name: "Unknown" };
  }
}
