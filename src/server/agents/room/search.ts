/**
 * The room's half of search across rooms: ask the framework's own FTS5
 * index (the one `search_room_history` uses), then dress the hits the
 * overseer merges: author and time from the stored message, a plain-text
 * snippet with mark ranges, and a score comparable across rooms.
 */
import type { Session } from "agents/sessions";
import type { MessageMetadata } from "../../../shared/protocol";
import type { SearchHit } from "../../../shared/search";
import { makeSnippet, queryTerms, rankHits, scoreText } from "../../domain/search";

/** Hits a room considers before re-scoring: enough that cross-room ranking is fair. */
const CANDIDATES_PER_ROOM = 50;

export async function searchRoomMessages(session: Session, query: string, limit: number): Promise<SearchHit[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const candidates = await session.search(query, { limit: Math.max(limit, CANDIDATES_PER_ROOM) });
  const scored = candidates.map((hit) => ({ hit, score: scoreText(hit.content, terms) }));
  const best = rankHits(
    scored.map(({ hit, score }) => ({ messageId: hit.id, createdAt: 0, score, hit })),
    limit
  );
  const out: SearchHit[] = [];
  for (const { hit, score } of best) {
    // One primary-key read per returned hit, for author and time.
    const stored = await session.getMessage(hit.id);
    const metadata = (stored?.metadata ?? {}) as MessageMetadata;
    const { snippet, marks } = makeSnippet(hit.content, terms);
    out.push({
      messageId: hit.id,
      role: hit.role as SearchHit["role"],
      author: hit.role === "user" ? authorName(metadata.author) : (metadata.model ?? null),
      createdAt: typeof metadata.createdAt === "number" ? metadata.createdAt : null,
      snippet,
      marks,
      score
    });
  }
  return out;
}

/** Older messages hold a bare name; newer ones the server-written `{ id, name }`. */
function authorName(author: MessageMetadata["author"] | string | undefined): string | null {
  if (!author) return null;
  return typeof author === "string" ? author : author.name;
}
