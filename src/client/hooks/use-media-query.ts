import { useSyncExternalStore } from "react";

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (listener) => {
      const mql = window.matchMedia(query);
      mql.addEventListener("change", listener);
      return () => mql.removeEventListener("change", listener);
    },
    () => window.matchMedia(query).matches,
    () => false
  );
}

/** The sidebar is a drawer below this width (Tailwind's `md`). */
export const DESKTOP_QUERY = "(min-width: 768px)";
