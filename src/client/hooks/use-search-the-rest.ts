/**
 * "Search the rest" of a partial search across rooms: asks only the rooms
 * that did not answer in time (lib/search-rest.ts) and shows their matches
 * merged in as each batch answers. Tied to the answer it continues: a new
 * query (a new `base`) shows that answer and cancels a run still going.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { api, errorMessage } from "@/client/lib/api";
import { searchTheRest } from "@/client/lib/search-rest";
import type { SearchResponse } from "@/shared/search";

interface RestState {
  base: SearchResponse;
  merged: SearchResponse;
  /** Rooms asked so far of those missing when the run started; null when not running. */
  progress: { asked: number; total: number } | null;
  error: string | null;
}

export function useSearchTheRest(base: SearchResponse | null, query: string, limit: number) {
  const [state, setState] = useState<RestState | null>(null);
  const running = useRef<AbortController | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new answer is the trigger to cancel the old one's continuation
  useEffect(() => () => running.current?.abort(), [base]);
  const current = base && state?.base === base ? state : null;
  const value = current?.merged ?? base;

  const run = useCallback(() => {
    if (!base || !value?.partial) return;
    running.current?.abort();
    const abort = new AbortController();
    running.current = abort;
    const start = value;
    const total = start.missingRooms.length;
    const set = (next: (prev: RestState) => RestState) =>
      setState((prev) => {
        if (abort.signal.aborted) return prev;
        return next(prev?.base === base ? prev : { base, merged: start, progress: null, error: null });
      });
    set(() => ({ base, merged: start, progress: { asked: 0, total }, error: null }));
    searchTheRest(
      start,
      limit,
      (roomIds) => api.searchRooms(query, limit, roomIds, abort.signal),
      (merged, asked) => set((prev) => ({ ...prev, merged, progress: { asked, total } }))
    ).then(
      (merged) => set((prev) => ({ ...prev, merged, progress: null })),
      (error: unknown) => set((prev) => ({ ...prev, progress: null, error: errorMessage(error) }))
    );
  }, [base, value, query, limit]);

  return { value, progress: current?.progress ?? null, error: current?.error ?? null, run };
}
