/**
 * Read marks: how far each person has read each room, kept per identity by
 * the workspace's overseer (so it follows the person across devices and
 * tabs). A mark is a position in the room's message count, not a time: the
 * room's count only grows (edits and regenerations keep what they replace),
 * so "unread" is the count minus the mark, O(1) per room.
 */
import { z } from "zod";

export interface ReadMark {
  roomId: string;
  /** How many of the room's messages this person has read (the room's count when they last saw its newest). */
  count: number;
  /** The newest message they had seen then (where the "new messages" divider goes), when known. */
  messageId: string | null;
}

export const ReadMarkSchema = z.object({
  roomId: z.string(),
  count: z.number().int().nonnegative(),
  messageId: z.string().nullable()
});

/** Messages in a room this person has not read. No mark: they have read none. */
export function unreadCount(messageCount: number, mark: Pick<ReadMark, "count"> | undefined): number {
  return Math.max(0, messageCount - (mark?.count ?? 0));
}
