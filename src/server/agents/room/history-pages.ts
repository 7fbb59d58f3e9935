/**
 * Pages of a room's history around or after a given message, for deep
 * links (`?m=<id>`) into rooms far larger than any page. Older messages
 * come from the framework's leaf-to-root walk; newer ones are found by
 * `seq` in one id-only query, because the framework's child lookup scans
 * the table once per step and a page would take one scan per message.
 */
import type { Session } from "agents/sessions";
import { AppError } from "@/server/app-error";
import { toChatMessage } from "@/server/domain/messages/chat-messages";
import type { ChatMessage, MessagePage, MessagesQuery } from "@/shared/protocol";

type Sql = <T>(strings: TemplateStringsArray, ...values: (string | number | boolean | null)[]) => T[];

const messageNotFound = (id: string) => new AppError("not_found:message", 404, `Message "${id}" is not in this room.`);

/** Up to `count` messages older than `leafId` (exclusive), oldest first; and whether more exist. */
async function olderThan(session: Session, leafId: string, count: number) {
  const out: ChatMessage[] = [];
  let hasMore = false;
  for await (const message of session.history({ newestFirst: true, leafId })) {
    if (message.id === leafId) continue;
    if (out.length === count) {
      hasMore = true;
      break;
    }
    out.push(toChatMessage(message));
  }
  return { messages: out.reverse(), hasMore };
}

/**
 * Ids of up to `count` messages after `afterId` on its branch, oldest
 * first. Where a message has several children (an edit keeps the old
 * version), the newest child is the branch we follow.
 */
function newerIds(sql: Sql, sessionId: string, afterId: string, count: number) {
  const rows = sql<{ id: string; parent_id: string | null; seq: number }>`
    SELECT id, parent_id, seq FROM cf_agents_session_messages
    WHERE session_id = ${sessionId} AND type = 'message'
      AND seq > (SELECT seq FROM cf_agents_session_messages WHERE session_id = ${sessionId} AND id = ${afterId})
    ORDER BY seq LIMIT ${count * 4 + 16}`;
  const childOf = new Map<string, string>();
  for (const row of rows) if (row.parent_id) childOf.set(row.parent_id, row.id); // later seq wins
  const ids: string[] = [];
  let cursor = afterId;
  while (ids.length <= count) {
    const child = childOf.get(cursor);
    if (!child) break;
    ids.push(child);
    cursor = child;
  }
  return { ids: ids.slice(0, count), hasMore: ids.length > count };
}

async function load(session: Session, ids: string[]): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  for (const id of ids) {
    const message = await session.getMessage(id);
    if (message) out.push(toChatMessage(message));
  }
  return out;
}

/**
 * One page of history, newest page first, oldest message first within the
 * page. Walks the stored path from the cursor backwards and stops after
 * `limit + 1` messages, so the cost is the page, not the room. An unknown
 * cursor is an empty page.
 */
export async function pageBefore(session: Session, before: string | undefined, limit: number): Promise<MessagePage> {
  if (before && !(await session.getMessage(before))) return { messages: [], nextCursor: null };
  const page: ChatMessage[] = [];
  let hasMore = false;
  for await (const message of session.history({ newestFirst: true, leafId: before ?? null })) {
    if (before && message.id === before) continue;
    if (page.length === limit) {
      hasMore = true;
      break;
    }
    page.push(toChatMessage(message));
  }
  page.reverse();
  return { messages: page, nextCursor: hasMore && page.length > 0 ? page[0].id : null };
}

/** The page holding `around`, with it near the middle. */
async function pageAround(session: Session, sql: Sql, around: string, limit: number): Promise<MessagePage> {
  const target = await session.getMessage(around);
  if (!target) throw messageNotFound(around);
  const newerWanted = Math.floor((limit - 1) / 2);
  const newer = newerIds(sql, session.sessionId, around, newerWanted);
  const older = await olderThan(session, around, limit - 1 - newer.ids.length);
  const messages = [...older.messages, toChatMessage(target), ...(await load(session, newer.ids))];
  return {
    messages,
    nextCursor: older.hasMore ? messages[0].id : null,
    newerCursor: newer.hasMore ? (messages.at(-1)?.id ?? null) : null
  };
}

/** The page of messages just after `after` (exclusive), oldest first. */
async function pageAfter(session: Session, sql: Sql, after: string, limit: number): Promise<MessagePage> {
  if (!(await session.getMessage(after))) throw messageNotFound(after);
  const newer = newerIds(sql, session.sessionId, after, limit);
  const messages = await load(session, newer.ids);
  return {
    messages,
    nextCursor: messages[0]?.id ?? null,
    newerCursor: newer.hasMore ? (messages.at(-1)?.id ?? null) : null
  };
}

/** The page `around` a message, else the page just `after` one (deep links, reading forward). */
export function pageNear(session: Session, sql: Sql, query: MessagesQuery): Promise<MessagePage> {
  return query.around
    ? pageAround(session, sql, query.around, query.limit)
    : pageAfter(session, sql, query.after ?? "", query.limit);
}
