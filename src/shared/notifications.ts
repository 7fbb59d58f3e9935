/**
 * Notifications: a person's inbox of the messages that name them (`@Name`
 * of a person in a room they can see) or reply to one of theirs. Kept per workspace and identity by
 * the workspace's overseer; a room says who a message mentions, the
 * overseer decides who that is and whether they may see the room. Wire
 * types and request schemas, shared by the server and the browser.
 */
import { z } from "zod";

/** `mention`: the message names you; `reply`: it replies to a message of yours (shared/replies.ts). */
const NOTIFICATION_KINDS = ["mention", "reply"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** How many notifications a person keeps per workspace: older ones make way for new ones. */
export const MAX_NOTIFICATIONS_PER_PERSON = 200;
/** How many people one message can notify (the rest of its mentions are ignored). */
export const MAX_MENTIONED_PEOPLE = 20;

export const NotificationSchema = z.object({
  id: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  roomId: z.string(),
  /** The room's name now (renames show). */
  roomName: z.string(),
  messageId: z.string(),
  /** Who wrote the message. */
  from: z.object({ id: z.string(), name: z.string() }),
  /** The start of the message, as the room list previews it. */
  preview: z.string(),
  /** Epoch ms. */
  createdAt: z.number(),
  read: z.boolean()
});
export type Notification = z.infer<typeof NotificationSchema>;

/** `GET /api/notifications`: newest first, only rooms the caller can see now. */
export interface NotificationList {
  notifications: Notification[];
  /** Unread notifications, over every room the caller can see. */
  unread: number;
  /** Rooms whose mentions the caller muted (ids of rooms they can see). */
  muted: string[];
}

const NOTIFICATION_ID = /^nt_[0-9a-f-]{36}$/;

/** `POST /api/notifications/read`: some by id, or all of them. */
export const MarkNotificationsReadBody = z.union(
  [
    z.strictObject({
      ids: z
        .array(z.string().regex(NOTIFICATION_ID, "ids must be notification ids (nt_…)"))
        .min(1, "ids must not be empty")
        .max(MAX_NOTIFICATIONS_PER_PERSON, `ids may name at most ${MAX_NOTIFICATIONS_PER_PERSON} notifications`)
    }),
    z.strictObject({ all: z.literal(true, { error: "all must be true" }) })
  ],
  { error: "give ids (an array of notification ids) or all: true" }
);
export type MarkNotificationsReadBody = z.infer<typeof MarkNotificationsReadBody>;

/** `PUT /api/rooms/:id/notifications`: mute or unmute the room's mentions for the caller. */
export const RoomNotificationsBody = z.strictObject({
  muted: z.boolean({ error: "muted must be true or false" })
});
export type RoomNotificationsBody = z.infer<typeof RoomNotificationsBody>;

/** `GET|PUT /api/rooms/:id/notifications`. */
export interface RoomNotifications {
  roomId: string;
  muted: boolean;
}

export function newNotificationId(): string {
  return `nt_${crypto.randomUUID()}`;
}
