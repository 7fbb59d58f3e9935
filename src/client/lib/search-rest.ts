/**
 * "Search the rest": a search across rooms that came back partial names the
 * rooms that did not answer in time; asking only those (`rooms=`) and
 * merging their matches in finishes it. The merge keeps what a complete
 * search would have answered: one entry per message, best first, at most
 * `limit`.
 */
import { compareSearchHits, type SearchResponse, type SearchResult } from "@/shared/search";

/** Room ids per continued request: keeps the URL short (a room id is 16 characters). */
const REST_ROOMS_PER_REQUEST = 100;

/** `more` answered for the rooms in `asked`; the merged answer still misses what `more` missed. */
export function mergeSearch(
  base: SearchResponse,
  more: SearchResponse,
  asked: readonly string[],
  limit: number
): SearchResponse {
  const byMessage = new Map<string, SearchResult>();
  for (const hit of [...base.results, ...more.results]) byMessage.set(`${hit.roomId}\u0000${hit.messageId}`, hit);
  const askedSet = new Set(asked);
  const stillMissing = new Set(more.missingRooms.map((room) => room.roomId));
  const missingRooms = base.missingRooms.filter((room) => !askedSet.has(room.roomId) || stillMissing.has(room.roomId));
  return {
    results: [...byMessage.values()].sort(compareSearchHits).slice(0, limit),
    partial: missingRooms.length > 0,
    roomsSearched: base.roomsSearched,
    missingCount: missingRooms.length,
    missingRooms
  };
}

/** The missing rooms of `base` in requests of at most `size`, most recently active first (the server's order). */
export function restBatches(base: SearchResponse, size = REST_ROOMS_PER_REQUEST): string[][] {
  const ids = base.missingRooms.map((room) => room.roomId);
  const out: string[][] = [];
  for (let at = 0; at < ids.length; at += size) out.push(ids.slice(at, at + size));
  return out;
}

/**
 * Asks the missing rooms of `base` a batch at a time, reporting the merged
 * answer after each, and resolves with the last. A failed request rejects
 * (what was merged before it was already reported).
 */
export async function searchTheRest(
  base: SearchResponse,
  limit: number,
  ask: (roomIds: string[]) => Promise<SearchResponse>,
  onProgress: (merged: SearchResponse, roomsAsked: number) => void
): Promise<SearchResponse> {
  let merged = base;
  let roomsAsked = 0;
  for (const batch of restBatches(base)) {
    merged = mergeSearch(merged, await ask(batch), batch, limit);
    roomsAsked += batch.length;
    onProgress(merged, roomsAsked);
  }
  return merged;
}
