/**
 * Where the "N new messages" divider goes when a room opens: after the
 * message the reader last saw (their read mark's message id) when it is
 * loaded, else that many messages from the end. The reader's own messages
 * at the start of the new stretch are not news to them.
 */
import { authorId } from "@/shared/identity";
import type { ReadMark } from "@/shared/unread";

interface MessageLike {
  id: string;
  role: string;
  metadata?: { author?: unknown };
}

export interface UnreadStart {
  /** Index of the first unread message in the loaded messages. */
  index: number;
  /** How many new messages to announce (from the mark's count when the start is not loaded). */
  count: number;
}

export function firstUnread(
  messages: readonly MessageLike[],
  opening: { unread: number; mark: ReadMark | undefined },
  selfId: string
): UnreadStart | null {
  if (opening.unread <= 0 || messages.length === 0) return null;
  const markId = opening.mark?.messageId;
  let seen = -1;
  if (markId) {
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].id === markId) {
        seen = i;
        break;
      }
    }
  }
  let index = seen >= 0 ? seen + 1 : Math.max(0, messages.length - opening.unread);
  const own = (m: MessageLike) => m.role === "user" && authorId(m.metadata?.author) === selfId;
  while (index < messages.length && own(messages[index])) index++;
  if (index >= messages.length) return null;
  const count = seen >= 0 || opening.unread <= messages.length ? messages.length - index : opening.unread;
  return { index, count };
}
