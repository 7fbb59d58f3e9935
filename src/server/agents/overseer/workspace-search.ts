/**
 * Search across a workspace's rooms, the overseer's half: every room
 * searches its own index (room/room-search.ts), a bounded number at a time, most
 * recently active first, empty rooms not woken (domain/search/search-plan.ts);
 * rooms that have not answered by the deadline are reported as missing
 * rather than waited for, so a client can ask only those again.
 */

import { planRoomSearch, type SearchableRoom } from "@/server/domain/search/search-plan";
import { fanOut, rankHits, SEARCH_CONCURRENCY } from "@/server/domain/search/search-ranking";
import type { SearchHit, SearchQuery, SearchResponse } from "@/shared/search";

/** What a search needs from the overseer. */
interface SearchHost {
  /** Registry rows in scope: one room, or all of them. */
  rooms(only?: string): SearchableRoom[];
  /** One room's own search. */
  searchRoom(id: string, q: string, limit: number): Promise<SearchHit[]>;
  deadlineMs: number;
}

export async function searchRooms(query: SearchQuery, host: SearchHost): Promise<SearchResponse> {
  const rows = host.rooms(query.room);
  const plan = planRoomSearch(rows, query.rooms);
  const names = new Map(rows.map((row) => [row.id, row.name]));
  const outcome = await fanOut(
    plan.ask.map((row) => row.id),
    (id) => host.searchRoom(id, query.q, query.limit),
    { concurrency: SEARCH_CONCURRENCY, deadlineMs: host.deadlineMs }
  );
  for (const { key, error } of outcome.failed) console.warn(`[OverseerAgent] search failed in room ${key}:`, error);
  const hits = outcome.results.flatMap(({ key, value }) =>
    value.map((hit) => ({ ...hit, roomId: key, roomName: names.get(key) ?? key }))
  );
  const missing = [...outcome.missed, ...outcome.failed.map((f) => f.key)];
  return {
    results: rankHits(hits, query.limit),
    partial: missing.length > 0,
    roomsSearched: plan.ask.length + plan.empty.length,
    missingCount: missing.length,
    missingRooms: missing.map((id) => ({ roomId: id, roomName: names.get(id) ?? id }))
  };
}
