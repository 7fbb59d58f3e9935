/**
 * Whether a message sits under the previous one's header (same author, or
 * same persona, within five minutes; answers only when they answer the same question): the transcript, a linked page and an
 * earlier version group messages alike.
 */
import { authorId, authorName } from "@/shared/identity";
import type { RoomMessage } from "./messages";

const GROUP_WINDOW_MS = 5 * 60_000;

/** Legacy messages carry a bare name; identity-era ones an id. */
const authorKey = (author: unknown) => authorId(author) ?? authorName(author);

export function isGrouped(prev: RoomMessage | undefined, message: RoomMessage): boolean {
  if (!prev || prev.role !== message.role) return false;
  if (prev.metadata?.error) return false;
  if (prev.metadata?.persona?.id !== message.metadata?.persona?.id) return false;
  // Answers to different questions never share a header: each says whom it replies to.
  if (message.role === "assistant" && prev.metadata?.answers !== message.metadata?.answers) return false;
  if (message.role === "user" && authorKey(prev.metadata?.author) !== authorKey(message.metadata?.author)) return false;
  const a = prev.metadata?.createdAt;
  const b = message.metadata?.createdAt;
  return a !== undefined && b !== undefined && b - a < GROUP_WINDOW_MS;
}
