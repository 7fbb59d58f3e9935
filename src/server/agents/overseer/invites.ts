/**
 * Invitations to a room, in the overseer's SQLite: one row per active
 * invitation, holding the SHA-256 of its token (never the token), when it
 * expires, how many may use it and how many have. The Worker signs the
 * tokens (routes/members-routes.ts); revoking deletes the row, so the very next
 * accept is refused. Who may invite is decided before any of this runs.
 */

import { AppError } from "@/server/app-error";
import type { InviteRow } from "@/server/contracts/overseer-api";
import type { MessageAuthor } from "@/shared/identity";
import { MAX_INVITES_PER_ROOM } from "@/shared/members";

export class InviteTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS invites (
      id TEXT PRIMARY KEY,
      room_id TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      max_uses INTEGER,
      uses INTEGER NOT NULL DEFAULT 0,
      created_by TEXT NOT NULL
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS invites_by_room ON invites (room_id, created_at)");
  }

  /** Records an invitation the Worker signed; 409 when the room already has as many as it keeps. */
  create(row: Omit<InviteRow, "uses" | "created_by"> & { createdBy: MessageAuthor }, now = Date.now()): InviteRow {
    this.#deleteExpired(now);
    if (this.active(row.room_id, now).length >= MAX_INVITES_PER_ROOM) {
      throw new AppError(
        "conflict:invite_limit",
        409,
        `This room has ${MAX_INVITES_PER_ROOM} active invitations, the most it keeps. Revoke one first.`
      );
    }
    const stored: InviteRow = { ...row, uses: 0, created_by: JSON.stringify(row.createdBy) };
    this.sql.exec(
      `INSERT INTO invites (id, room_id, token_hash, created_at, expires_at, max_uses, uses, created_by)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
      stored.id,
      stored.room_id,
      stored.token_hash,
      stored.created_at,
      stored.expires_at,
      stored.max_uses,
      stored.created_by
    );
    return stored;
  }

  /** A room's invitations that still work at `now`, oldest first. */
  active(roomId: string, now = Date.now()): InviteRow[] {
    return this.sql
      .exec<InviteRow>(
        "SELECT * FROM invites WHERE room_id = ? AND expires_at > ? ORDER BY created_at, id",
        roomId,
        now
      )
      .toArray();
  }

  /** The invitation, while its token matches and it has not expired; null otherwise. */
  live(inviteId: string, roomId: string, tokenHash: string, now = Date.now()): InviteRow | null {
    const row = this.sql.exec<InviteRow>("SELECT * FROM invites WHERE id = ?", inviteId).toArray()[0];
    if (!row || row.room_id !== roomId || row.token_hash !== tokenHash || row.expires_at <= now) return null;
    return row;
  }

  /** Counts one use; false when it has none left (then nothing changed). */
  use(inviteId: string): boolean {
    return (
      this.sql.exec(
        "UPDATE invites SET uses = uses + 1 WHERE id = ? AND (max_uses IS NULL OR uses < max_uses)",
        inviteId
      ).rowsWritten > 0
    );
  }

  /** Whether there was such an invitation on that room. */
  delete(roomId: string, inviteId: string): boolean {
    return this.sql.exec("DELETE FROM invites WHERE id = ? AND room_id = ?", inviteId, roomId).rowsWritten > 0;
  }

  deleteRoom(roomId: string) {
    this.sql.exec("DELETE FROM invites WHERE room_id = ?", roomId);
  }

  #deleteExpired(now: number) {
    this.sql.exec("DELETE FROM invites WHERE expires_at <= ?", now);
  }
}
