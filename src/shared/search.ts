/** Wire types of search across rooms (`GET /api/search`). */
import { z } from "zod";

const MAX_SEARCH_QUERY_LENGTH = 200;
const DEFAULT_SEARCH_LIMIT = 20;
const MAX_SEARCH_LIMIT = 100;
/** Room ids one continued search may name: a whole large workspace's missing rooms. */
const MAX_SEARCH_ROOMS = 1_000;

export const SearchQuery = z.strictObject({
  q: z
    .string({ error: "q must be a string" })
    .trim()
    .min(1, "q must not be empty")
    .max(MAX_SEARCH_QUERY_LENGTH, `q must be at most ${MAX_SEARCH_QUERY_LENGTH} characters`)
    .refine((s) => /[\p{L}\p{N}]/u.test(s), "q must contain at least one letter or digit"),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(MAX_SEARCH_LIMIT, `limit must be at most ${MAX_SEARCH_LIMIT}`)
    .default(DEFAULT_SEARCH_LIMIT),
  /** Search one room only (find in room): its id. */
  room: z
    .string({ error: "room must be a string" })
    .min(1, "room must not be empty")
    .max(128, "room must be at most 128 characters")
    .optional(),
  /**
   * Comma-separated room ids: search only these. "Search the rest" sends the
   * `missingRooms` of a partial answer here; ids of rooms that no longer
   * exist are ignored.
   */
  rooms: z
    .string({ error: "rooms must be a comma-separated list of room ids" })
    .transform((s) => [...new Set(s.split(",").filter(Boolean))])
    .refine((ids) => ids.length > 0, "rooms must name at least one room")
    .refine((ids) => ids.length <= MAX_SEARCH_ROOMS, `rooms must name at most ${MAX_SEARCH_ROOMS} rooms`)
    .refine((ids) => ids.every((id) => /^[A-Za-z0-9_-]{1,64}$/.test(id)), "rooms must hold room ids")
    .optional()
});
export type SearchQuery = z.infer<typeof SearchQuery>;

/** [start, end) offsets into a snippet: the words that matched. */
export type TextRange = [number, number];

/** One match, as a room reports it to the overseer. */
export interface SearchHit {
  messageId: string;
  role: "user" | "assistant" | "system";
  author: string | null;
  createdAt: number | null;
  /** Plain text; never HTML. */
  snippet: string;
  marks: TextRange[];
  /** Comparable across rooms; higher is better. */
  score: number;
}

/**
 * The order of results: best score first; ties by newer first, then by id,
 * so the server's ranking and the client's merge of a continued search agree.
 */
export function compareSearchHits(
  a: Pick<SearchHit, "score" | "createdAt" | "messageId">,
  b: Pick<SearchHit, "score" | "createdAt" | "messageId">
): number {
  return (
    b.score - a.score ||
    (b.createdAt ?? 0) - (a.createdAt ?? 0) ||
    (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0)
  );
}

export interface SearchResult extends SearchHit {
  roomId: string;
  roomName: string;
}

export interface SearchResponse {
  results: SearchResult[];
  /** True when some rooms did not answer by the deadline; their hits are missing. */
  partial: boolean;
  /** Rooms asked, and rooms whose answers are missing (late or failed). */
  roomsSearched: number;
  /** How many rooms were not searched (late or failed): `missingRooms.length`. */
  missingCount: number;
  missingRooms: Array<{ roomId: string; roomName: string }>;
}
