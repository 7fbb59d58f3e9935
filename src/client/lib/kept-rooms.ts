/**
 * Which rooms stay mounted in the page (components/RoomView.tsx keeps them,
 * hidden, with React's <Activity>): switching rooms is the most frequent
 * action in a multi-room app, and a room still mounted comes back in a
 * frame. A few only: each holds its transcript's DOM.
 */

/** Rooms kept mounted, the open one included. */
export const KEPT_ROOMS = 3;

/**
 * The rooms to keep mounted once `open` is open, in the order they were
 * first mounted (a DOM node moved in the page loses its scroll position),
 * without the one left longest ago when there are too many. `lastOpen`:
 * when each room was last open (any increasing count).
 */
export function keptRooms(kept: readonly string[], lastOpen: ReadonlyMap<string, number>, open: string): string[] {
  if (kept.includes(open)) return kept as string[];
  const next = [...kept, open];
  if (next.length <= KEPT_ROOMS) return next;
  const age = (id: string) => lastOpen.get(id) ?? 0;
  const oldest = next.filter((id) => id !== open).reduce((a, b) => (age(b) < age(a) ? b : a));
  return next.filter((id) => id !== oldest);
}
