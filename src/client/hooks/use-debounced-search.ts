/**
 * A search that follows what the person types: nothing for a query too short
 * to mean anything, a pause before asking (so each keystroke does not cost a
 * request), and the previous request aborted when the query changes. Shared
 * by the message search (Ctrl+K) and find in room.
 */
import { useEffect, useRef, useState } from "react";
import { errorMessage } from "@/client/lib/api";

const MIN_QUERY = 2;
const DEBOUNCE_MS = 250;

export type SearchState<T> =
  | { status: "idle" }
  | { status: "loading" }
  | { status: "done"; value: T }
  | { status: "error"; message: string };

/** `scope` names what is searched (a room id, say): a new scope searches again. */
export function useDebouncedSearch<T>(
  query: string,
  search: (query: string, signal: AbortSignal) => Promise<T>,
  scope = ""
): SearchState<T> {
  const q = query.trim();
  const [state, setState] = useState<SearchState<T>>({ status: "idle" });
  const searchRef = useRef(search);
  searchRef.current = search;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scope is the trigger for a new search; search is read from its ref
  useEffect(() => {
    if (q.length < MIN_QUERY || !/[\p{L}\p{N}]/u.test(q)) {
      setState({ status: "idle" });
      return;
    }
    setState({ status: "loading" });
    const abort = new AbortController();
    const timer = setTimeout(() => {
      searchRef.current(q, abort.signal).then(
        (value) => setState({ status: "done", value }),
        (error: unknown) => {
          if (!abort.signal.aborted) setState({ status: "error", message: errorMessage(error) });
        }
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [q, scope]);
  return state;
}
