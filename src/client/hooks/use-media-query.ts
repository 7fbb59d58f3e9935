import { useCallback, useSyncExternalStore } from "react";

/**
 * One MediaQueryList per query for the tab: `matchMedia` parses the query
 * and registers a new list on every call, and a component that re-renders
 * for each streamed chunk (the composer) would otherwise call it, and
 * resubscribe, every time.
 */
const lists = new Map<string, MediaQueryList>();

function mediaQueryList(query: string): MediaQueryList {
  let list = lists.get(query);
  if (!list) {
    list = window.matchMedia(query);
    lists.set(query, list);
  }
  return list;
}

export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (listener: () => void) => {
      const list = mediaQueryList(query);
      list.addEventListener("change", listener);
      return () => list.removeEventListener("change", listener);
    },
    [query]
  );
  return useSyncExternalStore(
    subscribe,
    () => mediaQueryList(query).matches,
    () => false
  );
}

/** The sidebar is a drawer below this width (Tailwind's `md`). */
export const DESKTOP_QUERY = "(min-width: 768px)";
