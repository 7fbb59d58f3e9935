/**
 * Wire types of share links: a read-only view of one room for anyone
 * holding the link, signed by the server and revocable by any member.
 */
import { z } from "zod";
import { MAX_SOCKETS_PER_ROOM } from "./constants";
import type { MessageAuthor } from "./identity";
import { PageCursor, PageLimit } from "./protocol";

/** Active links per room: enough for every audience, small enough to list at once. */
export const MAX_SHARES_PER_ROOM = 50;
/** The longest a link may live when it expires at all (a year). */
const MAX_SHARE_LIFETIME_SECONDS = 365 * 24 * 60 * 60;
/** Share ids are ours (`sh_` and a UUID); anything else is not one. */
export const SHARE_ID_PATTERN = /^sh_[0-9a-f-]{36}$/;
/** A share token is a compact JWT; anything longer is not one of ours. */
export const MAX_SHARE_TOKEN_LENGTH = 1024;

export const CreateShareBody = z.strictObject({
  /** Seconds until the link stops working; absent means it lasts until revoked. */
  expiresIn: z
    .number({ error: "expiresIn must be a number of seconds" })
    .int("expiresIn must be a whole number of seconds")
    .min(1, "expiresIn must be at least 1 second")
    .max(MAX_SHARE_LIFETIME_SECONDS, `expiresIn must be at most ${MAX_SHARE_LIFETIME_SECONDS} seconds (a year)`)
    .optional()
});
export type CreateShareBody = z.infer<typeof CreateShareBody>;

/** One active link, as room members see it. */
export interface ShareLink {
  id: string;
  roomId: string;
  /** `/share/<token>`: relative, so it names whichever host serves the app. */
  path: string;
  createdAt: number;
  /** Epoch ms; null for a link that lasts until revoked. */
  expiresAt: number | null;
  createdBy: MessageAuthor;
}

export interface ShareList {
  shares: ShareLink[];
}

/** What a viewer learns about the room behind a link. */
export interface ShareView {
  roomId: string;
  roomName: string;
  expiresAt: number | null;
}

/** A viewer pages back through history; deep links and forward reads are for members. */
export const ShareMessagesQuery = z.strictObject({ before: PageCursor.optional(), limit: PageLimit });
export type ShareMessagesQuery = z.infer<typeof ShareMessagesQuery>;

/**
 * Share-link viewers a room admits at once: half its sockets, so anyone
 * holding a link can never crowd the room's members out.
 */
export const MAX_VIEWER_SOCKETS_PER_ROOM = MAX_SOCKETS_PER_ROOM / 2;

/** The close code a viewer's socket gets when its link is revoked or expires. */
export const SHARE_CLOSED_CODE = 4404;
