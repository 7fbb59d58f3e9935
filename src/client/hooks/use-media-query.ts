import { useCallback, useSyncExternalStore } from "react";
import { cached } from "@/client/lib/cache-by-key";

/**
 * One MediaQueryList per query for the tab: `matchMedia` parses the query
 * and registers a new list on every call, and a component that re-renders
 * for each streamed chunk (the composer) would otherwise call it, and
 * resubscribe, every time.
 */
const lists = new Map<string, MediaQueryList>();

const mediaQueryList = (query: string): MediaQueryList => cached(lists, query, () => window.matchMedia(query));

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
