/**
 * The room's half of search across rooms: ask the framework's own FTS5
 * index (the one `search_room_history` uses), then dress the hits the
 * overseer merges: author and time from the stored message, a plain-text
 * snippet with mark ranges, and a score comparable across rooms.
 *
 * A 1,000-room search runs every room's answer on the overseer's one thread,
 * so each answer is kept to two queries: the index's, and one read of the
 * returned hits' author and time straight from the stored JSON in SQL
 * (rather than a parse of every whole message in JS).
 */
import type { Session } from "agents/sessions";
import { makeSnippet, queryTerms, rankHits, scoreText } from "@/server/domain/search/search-ranking";
import type { HistorySearchHit } from "@/server/domain/turns/room-tools";
import type { MessageMetadata } from "@/shared/protocol";
import type { SearchHit } from "@/shared/search";

/** Hits a room considers before re-scoring: enough that cross-room ranking is fair. */
const CANDIDATES_PER_ROOM = 50;

type Sql = <T>(strings: TemplateStringsArray, ...values: (string | number | boolean | null)[]) => T[];

interface HitFacts {
  author: string | null;
  model: string | null;
  createdAt: number | null;
}

export async function searchRoomMessages(
  session: Session,
  sql: Sql,
  query: string,
  limit: number
): Promise<SearchHit[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const candidates = await session.search(query, { limit: Math.max(limit, CANDIDATES_PER_ROOM) });
  const best = rankHits(
    candidates.map((hit) => ({ messageId: hit.id, createdAt: 0, score: scoreText(hit.content, terms), hit })),
    limit
  );
  const facts = await hitFacts(
    session,
    sql,
    best.map(({ hit }) => hit.id)
  );
  return best.map(({ hit, score }) => {
    const known = facts.get(hit.id);
    const { snippet, marks } = makeSnippet(hit.content, terms);
    return {
      messageId: hit.id,
      role: hit.role as SearchHit["role"],
      author: hit.role === "user" ? (known?.author ?? null) : (known?.model ?? null),
      createdAt: known?.createdAt ?? null,
      snippet,
      marks,
      score
    };
  });
}

/**
 * Author, model and time of each hit, in one query. Older messages hold the
 * author as a bare name, newer ones the server-written `{ id, name }`. A
 * message too large for one row (the framework splits it into continuation
 * rows) is not valid JSON on its own: those few are read whole.
 */
async function hitFacts(session: Session, sql: Sql, ids: string[]): Promise<Map<string, HitFacts>> {
  const out = new Map<string, HitFacts>();
  if (ids.length === 0) return out;
  const rows = sql<{
    id: string;
    whole: number;
    author_name: string | null;
    author_text: string | null;
    model: string | null;
    created_at: number | null;
  }>`
    SELECT id, doc IS NOT NULL AS whole,
      json_extract(doc, '$.metadata.author.name') AS author_name,
      CASE json_type(doc, '$.metadata.author') WHEN 'text' THEN json_extract(doc, '$.metadata.author') END AS author_text,
      json_extract(doc, '$.metadata.model') AS model,
      json_extract(doc, '$.metadata.createdAt') AS created_at
    FROM (
      SELECT id, CASE WHEN content_chunks = 0 AND json_valid(content) THEN content END AS doc
      FROM cf_agents_session_messages
      WHERE session_id = ${session.sessionId} AND id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
    )`;
  for (const row of rows) {
    if (!row.whole) continue;
    out.set(row.id, {
      author: typeof row.author_name === "string" ? row.author_name : (row.author_text ?? null),
      model: typeof row.model === "string" ? row.model : null,
      createdAt: typeof row.created_at === "number" ? row.created_at : null
    });
  }
  for (const id of ids) {
    if (out.has(id)) continue;
    const metadata = ((await session.getMessage(id))?.metadata ?? {}) as MessageMetadata;
    const author = metadata.author as MessageMetadata["author"] | string | undefined;
    out.set(id, {
      author: !author ? null : typeof author === "string" ? author : author.name,
      model: metadata.model ?? null,
      createdAt: typeof metadata.createdAt === "number" ? metadata.createdAt : null
    });
  }
  return out;
}

/**
 * Full-text search over the room's own transcript, for the model's
 * `search_room_history` tool (the room's and its personas').
 */
export async function searchHistory(session: Session, query: string, limit: number): Promise<HistorySearchHit[]> {
  const hits = await session.search(query, { limit });
  return hits.map((hit) => ({ messageId: hit.id, role: hit.role, snippet: hit.content.slice(0, 300) }));
}
