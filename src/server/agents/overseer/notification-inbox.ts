/**
 * Notifications, overseer side: each person's inbox of mentions and replies
 * to their messages, and the rooms they muted, in the overseer's SQLite (one per workspace, so an
 * inbox is per workspace and identity, like read marks).
 *
 * A room reports a message's `@` fragments (room/room-mentions.ts); here
 * they become people: each fragment is tried as one to four words against
 * the people table's names (an index lookup each, never a scan), and only
 * those who can see the room now (shared/permissions.ts `canSee`), are not
 * its author and did not mute it get a row. So a mention costs
 * O(fragments + mentioned people), whatever the room or workspace holds.
 * Reading filters by who can see each room now as well, so an inbox never
 * names a private room its owner lost, and counts never include it.
 */
import { candidateNames, type MentionReport } from "@/server/domain/notifications/mention-fragments";
import type { MessageAuthor } from "@/shared/identity";
import {
  MAX_MENTIONED_PEOPLE,
  MAX_NOTIFICATIONS_PER_PERSON,
  type Notification,
  type NotificationKind,
  type NotificationList,
  newNotificationId
} from "@/shared/notifications";
import { canSee, type RoomVisibility } from "@/shared/permissions";
import type { OverseerFrame } from "@/shared/protocol";

type Row = {
  id: string;
  kind: string;
  room_id: string;
  message_id: string;
  from_json: string;
  preview: string;
  created_at: number;
  read_at: number | null;
};

/** What the notifications need of the overseer. */
export interface NotificationsHost {
  /** The room's name, or undefined when it is gone. */
  roomName(roomId: string): string | undefined;
  visibility(roomId: string): RoomVisibility;
  /** The identity's role in the room, null when not a member. */
  roomRole(roomId: string, identityId: string): "owner" | "member" | null;
  isAdmin(identityId: string): boolean;
  /** The ids of the people with exactly this name, ignoring case (an index lookup). */
  peopleNamed(name: string): string[];
  /** To one identity's list sockets (every tab of theirs), never anyone else's. */
  sendToReader(identityId: string, frame: OverseerFrame): void;
}

export class Notifications {
  constructor(
    private readonly sql: SqlStorage,
    private readonly host: NotificationsHost
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS notifications (
      id TEXT PRIMARY KEY,
      identity_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      room_id TEXT NOT NULL,
      message_id TEXT NOT NULL,
      from_json TEXT NOT NULL,
      preview TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      read_at INTEGER,
      UNIQUE (identity_id, message_id, kind)
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS notifications_by_identity ON notifications (identity_id, created_at)");
    sql.exec("CREATE INDEX IF NOT EXISTS notifications_by_room ON notifications (room_id)");
    sql.exec(`CREATE TABLE IF NOT EXISTS notification_mutes (
      identity_id TEXT NOT NULL,
      room_id TEXT NOT NULL,
      PRIMARY KEY (identity_id, room_id)
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS notification_mutes_by_room ON notification_mutes (room_id)");
  }

  /** Whether this identity can see the room now (the one rule, shared/permissions.ts). */
  sees(identityId: string, roomId: string): boolean {
    if (this.host.roomName(roomId) === undefined) return false;
    return canSee(
      { role: this.host.isAdmin(identityId) ? "admin" : "member", anonymous: false },
      { visibility: this.host.visibility(roomId), role: this.host.roomRole(roomId, identityId) }
    );
  }

  /** The people a message mentions, and the person it replies to, notified; answers who. Idempotent per message. */
  mention(roomId: string, report: MentionReport, now = Date.now()): string[] {
    const roomName = this.host.roomName(roomId);
    if (roomName === undefined) return []; // deleted while the report was in flight
    const people = new Set<string>();
    for (const fragment of report.fragments.slice(0, MAX_MENTIONED_PEOPLE)) {
      for (const name of candidateNames(fragment)) {
        const ids = this.host.peopleNamed(name);
        if (ids.length === 0) continue;
        for (const id of ids) people.add(id);
        break;
      }
      if (people.size >= MAX_MENTIONED_PEOPLE) break;
    }
    // Who the message replies to hears of it, unless it names them too (one notification is enough).
    const targets: Array<[string, NotificationKind]> = [...people].map((id) => [id, "mention"]);
    if (report.repliesTo && !people.has(report.repliesTo)) targets.push([report.repliesTo, "reply"]);
    const notified: string[] = [];
    for (const [identityId, kind] of targets) {
      if (identityId === report.author.id || this.#muted(identityId, roomId) || !this.sees(identityId, roomId))
        continue;
      const row: Row = {
        id: newNotificationId(),
        kind,
        room_id: roomId,
        message_id: report.messageId,
        from_json: JSON.stringify(report.author),
        preview: report.preview,
        created_at: now,
        read_at: null
      };
      const written = this.sql.exec(
        `INSERT OR IGNORE INTO notifications (id, identity_id, kind, room_id, message_id, from_json, preview, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        row.id,
        identityId,
        row.kind,
        roomId,
        row.message_id,
        row.from_json,
        row.preview,
        now
      ).rowsWritten;
      if (written === 0) continue;
      this.#prune(identityId);
      notified.push(identityId);
      this.host.sendToReader(identityId, {
        type: "notifications",
        unread: this.#unread(identityId),
        added: toNotification(row, roomName)
      });
    }
    return notified;
  }

  /** The identity's inbox, newest first, over the rooms it can see now. */
  list(identityId: string): NotificationList {
    const notifications = this.#visibleRows(identityId).flatMap((row) => {
      const name = this.host.roomName(row.room_id);
      return name === undefined ? [] : [toNotification(row, name)];
    });
    const muted = this.sql
      .exec<{ room_id: string }>("SELECT room_id FROM notification_mutes WHERE identity_id = ?", identityId)
      .toArray()
      .map((r) => r.room_id)
      .filter((roomId) => this.sees(identityId, roomId));
    return { notifications, unread: notifications.filter((n) => !n.read).length, muted };
  }

  /** Marks some (by id) or all of the identity's notifications read; every tab of theirs hears the count. */
  markRead(identityId: string, which: { ids: string[] } | { all: true }, now = Date.now()): NotificationList {
    if ("all" in which) {
      this.sql.exec("UPDATE notifications SET read_at = ? WHERE identity_id = ? AND read_at IS NULL", now, identityId);
    } else {
      for (const id of which.ids) {
        this.sql.exec(
          "UPDATE notifications SET read_at = ? WHERE identity_id = ? AND id = ? AND read_at IS NULL",
          now,
          identityId,
          id
        );
      }
    }
    const list = this.list(identityId);
    this.host.sendToReader(identityId, { type: "notifications", unread: list.unread });
    return list;
  }

  muted(identityId: string, roomId: string): boolean {
    return this.#muted(identityId, roomId);
  }

  setMuted(identityId: string, roomId: string, muted: boolean) {
    if (muted) {
      this.sql.exec(
        "INSERT OR IGNORE INTO notification_mutes (identity_id, room_id) VALUES (?, ?)",
        identityId,
        roomId
      );
    } else {
      this.sql.exec("DELETE FROM notification_mutes WHERE identity_id = ? AND room_id = ?", identityId, roomId);
    }
  }

  /** A deleted room leaves no notification and no mute behind. */
  forgetRoom(roomId: string) {
    this.sql.exec("DELETE FROM notifications WHERE room_id = ?", roomId);
    this.sql.exec("DELETE FROM notification_mutes WHERE room_id = ?", roomId);
  }

  /** What the workspace still holds of a room (tests prove a deleted room leaves nothing). */
  footprint(roomId: string): number {
    return (
      this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM notifications WHERE room_id = ?", roomId).one().n +
      this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM notification_mutes WHERE room_id = ?", roomId).one().n
    );
  }

  #muted(identityId: string, roomId: string): boolean {
    return (
      this.sql
        .exec("SELECT 1 FROM notification_mutes WHERE identity_id = ? AND room_id = ?", identityId, roomId)
        .toArray().length > 0
    );
  }

  /** At most MAX_NOTIFICATIONS_PER_PERSON rows, read or not: the oldest go. */
  #prune(identityId: string) {
    this.sql.exec(
      `DELETE FROM notifications WHERE identity_id = ? AND id NOT IN (
         SELECT id FROM notifications WHERE identity_id = ? ORDER BY created_at DESC, id LIMIT ?)`,
      identityId,
      identityId,
      MAX_NOTIFICATIONS_PER_PERSON
    );
  }

  #visibleRows(identityId: string): Row[] {
    const seen = new Map<string, boolean>();
    const visible = (roomId: string) => {
      const known = seen.get(roomId);
      if (known !== undefined) return known;
      const sees = this.sees(identityId, roomId);
      seen.set(roomId, sees);
      return sees;
    };
    return this.sql
      .exec<Row>(
        `SELECT id, kind, room_id, message_id, from_json, preview, created_at, read_at FROM notifications
         WHERE identity_id = ? ORDER BY created_at DESC, id LIMIT ?`,
        identityId,
        MAX_NOTIFICATIONS_PER_PERSON
      )
      .toArray()
      .filter((row) => visible(row.room_id));
  }

  #unread(identityId: string): number {
    return this.#visibleRows(identityId).filter((row) => row.read_at === null).length;
  }
}

function toNotification(row: Row, roomName: string): Notification {
  return {
    id: row.id,
    kind: row.kind as NotificationKind,
    roomId: row.room_id,
    roomName,
    messageId: row.message_id,
    from: JSON.parse(row.from_json) as MessageAuthor,
    preview: row.preview,
    createdAt: row.created_at,
    read: row.read_at !== null
  };
}
