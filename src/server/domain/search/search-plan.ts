/**
 * Which rooms a search across rooms asks, and in what order. Every room is a
 * facet in the overseer's own isolate, so a 1,000-room fan-out is bounded by
 * that one thread: when the deadline cuts it short, the rooms already asked
 * should be the ones people most likely mean. So the plan asks the most
 * recently active rooms first, and does not wake rooms that cannot match at
 * all (the registry knows they hold no messages). Pure: the overseer passes
 * its registry rows in.
 */

export interface SearchableRoom {
  id: string;
  name: string;
  last_active_at: number;
  message_count: number;
}

export interface SearchPlan {
  /** Rooms to ask, most recently active first (ties by id, for a stable order). */
  ask: SearchableRoom[];
  /** Rooms in scope answered without waking them: the registry says they hold no messages. */
  empty: SearchableRoom[];
}

/** `only`: the ids a continued search names ("Search the rest"); ids no longer in the registry are ignored. */
export function planRoomSearch(rooms: readonly SearchableRoom[], only?: readonly string[]): SearchPlan {
  const wanted = only ? new Set(only) : null;
  const inScope = wanted ? rooms.filter((room) => wanted.has(room.id)) : [...rooms];
  inScope.sort((a, b) => b.last_active_at - a.last_active_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    ask: inScope.filter((room) => room.message_count > 0),
    empty: inScope.filter((room) => room.message_count <= 0)
  };
}
