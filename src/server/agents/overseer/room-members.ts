/**
 * Who is in which room, in the overseer's SQLite: each room's visibility
 * (`room_access`; a room without a row is a `workspace` room, which is what
 * every room made before private rooms existed is) and its members
 * (`room_members`, the owner among them with role `owner`, at most one).
 * The rules of who may change these are in shared/permissions.ts and
 * overseer/workspace-access.ts; this is storage.
 */
import type { IdentityKind } from "@/shared/identity";
import type { RoomMember } from "@/shared/members";
import type { RoomRole, RoomVisibility } from "@/shared/permissions";

type MemberRow = { room_id: string; identity_id: string; name: string; kind: string; role: string; joined_at: number };

const toMember = (row: MemberRow): RoomMember => ({
  id: row.identity_id,
  name: row.name,
  kind: row.kind as IdentityKind,
  role: row.role === "owner" ? "owner" : "member",
  joinedAt: row.joined_at
});

export class RoomMembersTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS room_access (
      room_id TEXT PRIMARY KEY,
      visibility TEXT NOT NULL
    )`);
    sql.exec(`CREATE TABLE IF NOT EXISTS room_members (
      room_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      name TEXT NOT NULL,
      kind TEXT NOT NULL,
      role TEXT NOT NULL,
      joined_at INTEGER NOT NULL,
      PRIMARY KEY (room_id, identity_id)
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS room_members_by_identity ON room_members (identity_id)");
  }

  visibility(roomId: string): RoomVisibility {
    const row = this.sql
      .exec<{ visibility: string }>("SELECT visibility FROM room_access WHERE room_id = ?", roomId)
      .toArray()[0];
    return row?.visibility === "private" ? "private" : "workspace";
  }

  setVisibility(roomId: string, visibility: RoomVisibility) {
    this.sql.exec(
      `INSERT INTO room_access (room_id, visibility) VALUES (?, ?)
       ON CONFLICT (room_id) DO UPDATE SET visibility = excluded.visibility`,
      roomId,
      visibility
    );
  }

  /** Every private room's id: what the room list, search, status and exports leave out for outsiders. */
  privateRooms(): Set<string> {
    return new Set(
      this.sql
        .exec<{ room_id: string }>("SELECT room_id FROM room_access WHERE visibility = 'private'")
        .toArray()
        .map((row) => row.room_id)
    );
  }

  /** The rooms this identity is a member of. */
  roomsOf(identityId: string): Set<string> {
    return new Set(
      this.sql
        .exec<{ room_id: string }>("SELECT room_id FROM room_members WHERE identity_id = ?", identityId)
        .toArray()
        .map((row) => row.room_id)
    );
  }

  role(roomId: string, identityId: string): RoomRole | null {
    const row = this.sql
      .exec<{ role: string }>("SELECT role FROM room_members WHERE room_id = ? AND identity_id = ?", roomId, identityId)
      .toArray()[0];
    return row ? (row.role === "owner" ? "owner" : "member") : null;
  }

  /** The owner's identity id; null for a room made before owners were recorded. */
  owner(roomId: string): string | null {
    return (
      this.sql
        .exec<{ identity_id: string }>(
          "SELECT identity_id FROM room_members WHERE room_id = ? AND role = 'owner' LIMIT 1",
          roomId
        )
        .toArray()[0]?.identity_id ?? null
    );
  }

  /** Owner first, then by when they joined. */
  members(roomId: string): RoomMember[] {
    return this.sql
      .exec<MemberRow>(
        "SELECT * FROM room_members WHERE room_id = ? ORDER BY role = 'owner' DESC, joined_at, identity_id",
        roomId
      )
      .toArray()
      .map(toMember);
  }

  member(roomId: string, identityId: string): RoomMember | null {
    const row = this.sql
      .exec<MemberRow>("SELECT * FROM room_members WHERE room_id = ? AND identity_id = ?", roomId, identityId)
      .toArray()[0];
    return row ? toMember(row) : null;
  }

  /** Adds a member (a no-op for someone already in, whose role stays); returns whether they were added. */
  add(
    roomId: string,
    person: { id: string; name: string; kind: IdentityKind },
    role: RoomRole,
    now = Date.now()
  ): boolean {
    return (
      this.sql.exec(
        `INSERT INTO room_members (room_id, identity_id, name, kind, role, joined_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (room_id, identity_id) DO NOTHING`,
        roomId,
        person.id,
        person.name,
        person.kind,
        role,
        now
      ).rowsWritten > 0
    );
  }

  /** Whether they were a member. */
  remove(roomId: string, identityId: string): boolean {
    return (
      this.sql.exec("DELETE FROM room_members WHERE room_id = ? AND identity_id = ?", roomId, identityId).rowsWritten >
      0
    );
  }

  /** Makes `identityId` the owner and the previous owner a member, in one statement. */
  transferOwnership(roomId: string, identityId: string) {
    this.sql.exec(
      `UPDATE room_members SET role = CASE WHEN identity_id = ? THEN 'owner' ELSE 'member' END
       WHERE room_id = ? AND (role = 'owner' OR identity_id = ?)`,
      identityId,
      roomId,
      identityId
    );
  }

  /** Keeps a member's display name current (they renamed themselves). */
  rename(identityId: string, name: string) {
    this.sql.exec("UPDATE room_members SET name = ? WHERE identity_id = ? AND name != ?", name, identityId, name);
  }

  deleteRoom(roomId: string) {
    this.sql.exec("DELETE FROM room_members WHERE room_id = ?", roomId);
    this.sql.exec("DELETE FROM room_access WHERE room_id = ?", roomId);
  }
}
