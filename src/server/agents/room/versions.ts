/**
 * Earlier versions of a message. An edit or a regeneration never replaces
 * anything: it writes a sibling of the message it replaces in the room's
 * message tree (the framework's Sessions store; see chat-request-guard.ts),
 * and the room's transcript follows the newest one. This reads the other
 * siblings back, each with the thread that followed it on its own branch,
 * so anyone can look at what an edit or regeneration replaced.
 */
import type { Session } from "agents/sessions";
import { AppError } from "@/server/app-error";
import { toChatMessage } from "@/server/domain/messages/chat-messages";
import type { ChatMessage, MessageVersions } from "@/shared/protocol";

const messageNotFound = (id: string) => new AppError("not_found:message", 404, `Message "${id}" is not in this room.`);

type Sql = <T>(strings: TemplateStringsArray, ...values: (string | number | boolean | null)[]) => T[];

/** Versions of one position, and messages shown after each (its branch, newest child first). */
const MAX_VERSIONS = 50;
const MAX_THREAD_MESSAGES = 20;

export async function messageVersions(session: Session, sql: Sql, messageId: string): Promise<MessageVersions> {
  const sessionId = session.sessionId;
  const [row] = sql<{ parent_id: string | null }>`
    SELECT parent_id FROM cf_agents_session_messages
    WHERE session_id = ${sessionId} AND id = ${messageId} AND type = 'message'`;
  if (!row) throw messageNotFound(messageId);
  const siblings =
    row.parent_id === null
      ? sql<{ id: string }>`SELECT id FROM cf_agents_session_messages
          WHERE session_id = ${sessionId} AND type = 'message' AND parent_id IS NULL ORDER BY seq LIMIT ${MAX_VERSIONS}`
      : sql<{ id: string }>`SELECT id FROM cf_agents_session_messages
          WHERE session_id = ${sessionId} AND type = 'message' AND parent_id = ${row.parent_id}
          ORDER BY seq LIMIT ${MAX_VERSIONS}`;
  const versions: Array<{ messages: ChatMessage[] }> = [];
  for (const { id } of siblings) {
    const thread: ChatMessage[] = [];
    let cursor: string | null = id;
    while (cursor && thread.length < MAX_THREAD_MESSAGES) {
      const message = await session.getMessage(cursor);
      if (!message) break;
      thread.push(toChatMessage(message));
      const [child]: Array<{ id: string }> = sql<{ id: string }>`SELECT id FROM cf_agents_session_messages
        WHERE session_id = ${sessionId} AND type = 'message' AND parent_id = ${cursor} ORDER BY seq DESC LIMIT 1`;
      cursor = child?.id ?? null;
    }
    versions.push({ messages: thread });
  }
  return { messageId, parentId: row.parent_id, versions };
}
