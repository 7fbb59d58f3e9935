/**
 * Catch me up: on return to a room with unread messages, a summary of what
 * happened since your read mark, written for you alone (answered to you,
 * stored nowhere), with links to the messages it covers.
 */
import { z } from "zod";

/** The most messages one catch-up reads (the newest of them, when more are unread). */
export const MAX_CATCH_UP_MESSAGES = 100;

/** `POST /api/rooms/:id/catch-up`: from the first unread message the page showed, or else from your read mark. */
export const CatchUpBody = z.strictObject({
  from: z
    .string({ error: "from must be a message id" })
    .min(1, "from must not be empty")
    .max(128, "from must be at most 128 characters")
    .optional()
});
export type CatchUpBody = z.infer<typeof CatchUpBody>;

interface CatchUpMessage {
  id: string;
  /** Who wrote it: a person's name, a persona's `@Name`, or "Assistant". */
  author: string;
  preview: string;
  createdAt: number | null;
}

export interface CatchUp {
  /** null when there was nothing new to sum up. */
  summary: string | null;
  /** The model that wrote it ("extract" in an offline room). */
  model: string | null;
  /** The messages it covers, oldest first: each a link. */
  messages: CatchUpMessage[];
  /** More was unread than one catch-up reads: it covers the newest MAX_CATCH_UP_MESSAGES. */
  partial: boolean;
}

/** Where the caller stopped reading (the overseer finds it): the first message new to them, and how many their read mark counts. */
export interface CatchUpSince {
  from: string | null;
  /** How many messages the person's read mark says they had read (0 for none). */
  readCount: number;
}
