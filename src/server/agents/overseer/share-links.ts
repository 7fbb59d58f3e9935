/**
 * Share links of a workspace's rooms, in the overseer's SQLite: one row per
 * active link, holding the SHA-256 of its token, never the token. A link
 * is good while its row exists, matches the token and has not expired;
 * revoking deletes the row, so the very next open is refused. Tokens are
 * signed by the Worker (routes/shares-routes.ts); `ShareLinks` is the overseer's
 * side of their life: create, list, open, revoke, expire.
 */

import { AppError } from "@/server/app-error";
import type { ShareRow } from "@/server/contracts/overseer-api";
import type { RoomRow } from "@/server/domain/rooms/room-rows";
import type { MessageAuthor } from "@/shared/identity";
import { MAX_SHARES_PER_ROOM, type ShareView } from "@/shared/shares";

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

const shareGone = () => new AppError("not_found:share", 404, "This share link is no longer valid.");

/** What share links need from the overseer. */
interface ShareHost {
  /** The room's registry row; throws the room's 404 when there is none. */
  requireRoom(roomId: string): RoomRow;
  room(roomId: string): RoomRow | undefined;
  /** An alarm that calls `expire` with this payload at `at`. */
  scheduleExpiry(at: Date, payload: { roomId: string; shareId: string }): Promise<unknown>;
  /** Closes every socket opened with that link. */
  closeViewers(roomId: string, shareId: string): Promise<void>;
}

export class ShareLinks {
  constructor(
    private readonly table: ShareTable,
    private readonly host: ShareHost
  ) {}

  /** Records a link the Worker signed. An expiring one is ended on time by an alarm, closing its viewers. */
  async create(
    roomId: string,
    share: { id: string; tokenHash: string; createdAt: number; expiresAt: number | null; createdBy: MessageAuthor }
  ): Promise<ShareRow> {
    this.host.requireRoom(roomId);
    const now = Date.now();
    this.table.deleteExpired(now);
    if (this.table.active(roomId, now).length >= MAX_SHARES_PER_ROOM) {
      throw new AppError(
        "conflict:share_limit",
        409,
        `This room has ${MAX_SHARES_PER_ROOM} active share links, the most it keeps. Revoke one first.`
      );
    }
    const row = {
      id: share.id,
      room_id: roomId,
      token_hash: share.tokenHash,
      created_at: share.createdAt,
      expires_at: share.expiresAt
    };
    this.table.insert({ ...row, createdBy: share.createdBy });
    if (share.expiresAt !== null) {
      await this.host.scheduleExpiry(new Date(share.expiresAt), { roomId, shareId: share.id });
    }
    return { ...row, created_by: JSON.stringify(share.createdBy) };
  }

  list(roomId: string): ShareRow[] {
    this.host.requireRoom(roomId);
    return this.table.active(roomId, Date.now());
  }

  /** Deletes the link at once, then closes every socket opened with it. */
  async revoke(roomId: string, shareId: string): Promise<void> {
    this.host.requireRoom(roomId);
    if (!this.table.delete(roomId, shareId)) {
      throw new AppError("not_found:share", 404, `No active share link "${shareId.slice(0, 64)}" on this room.`);
    }
    await this.host.closeViewers(roomId, shareId);
  }

  /** What a viewer holding a valid token may see; 404 for a revoked, expired or mismatched one. */
  open(shareId: string, roomId: string, tokenHash: string): ShareView {
    const share = this.live(shareId, roomId);
    const room = share && share.token_hash === tokenHash ? this.host.room(roomId) : undefined;
    if (!share || !room) throw shareGone();
    return { roomId, roomName: room.name, expiresAt: share.expires_at };
  }

  /** The alarm set by `create`. */
  async expire(payload: { roomId: string; shareId: string }) {
    this.table.deleteExpired(Date.now());
    await this.host.closeViewers(payload.roomId, payload.shareId);
  }

  /** The link, while it works for that room; null once revoked or expired. */
  live(shareId: string, roomId: string): ShareRow | null {
    const share = this.table.get(shareId);
    if (!share || share.room_id !== roomId) return null;
    if (share.expires_at !== null && share.expires_at <= Date.now()) return null;
    return share;
  }

  deleteRoom(roomId: string) {
    this.table.deleteRoom(roomId);
  }
}
