/**
 * Private asides: a question to the room's assistant that only its asker
 * sees, inside the shared room. The assistant reads the room to answer, but
 * the aside is not part of the room: not in anyone else's history, search,
 * export or fork, nor in the context of the room's later answers, until its
 * asker shares it to the room (then it is an ordinary exchange, marked as a
 * shared aside). Runtime-safe for the browser bundle.
 */
import { z } from "zod";

/** Characters of one aside's question (a room message allows more; an aside is a quick question). */
export const MAX_ASIDE_LENGTH = 4_000;
/** Asides one person keeps in one room; one more is refused until they delete some. */
export const MAX_ASIDES_PER_PERSON = 100;

export const AsideBody = z.strictObject({
  text: z
    .string({ error: "text must be a string" })
    .trim()
    .min(1, "text must not be empty")
    .max(MAX_ASIDE_LENGTH, `text must be at most ${MAX_ASIDE_LENGTH} characters`)
});
export type AsideBody = z.infer<typeof AsideBody>;

export interface Aside {
  id: string;
  question: string;
  /** The assistant's answer; empty when it failed (`error` says why). */
  answer: string;
  /** The model that answered ("offline" when the room has none). */
  model: string | null;
  error: string | null;
  createdAt: number;
  /** When its asker shared it to the room, and the question's id there; null while private. */
  sharedAt: number | null;
  sharedMessageId: string | null;
}

/** `GET /api/rooms/:id/asides`: the caller's own asides in this room, newest first. */
export interface AsideList {
  asides: Aside[];
}
