/**
 * What a sheet shows from the server, fetched while it is open: again when
 * `key` changes (another room, or the room says the data changed) or when
 * the sheet changed it itself (`reload`). A fetch the sheet no longer wants
 * (closed, or a newer one started) is aborted and its answer ignored.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "@/client/lib/api";

export function useFetchWhileOpen<T>(open: boolean, key: string, load: (signal: AbortSignal) => Promise<T>) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [asked, setAsked] = useState(0);
  const reload = useCallback(() => setAsked((n) => n + 1), []);
  const loadRef = useRef(load);
  loadRef.current = load;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` and `asked` are the triggers; `load` is read through its ref
  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    loadRef.current(controller.signal).then(
      (value) => {
        setData(value);
        setError(null);
      },
      (e: unknown) => {
        if (!controller.signal.aborted) setError(errorMessage(e));
      }
    );
    return () => controller.abort();
  }, [open, key, asked]);

  return { data, error, reload };
}
