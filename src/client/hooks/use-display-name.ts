import { useCallback, useSyncExternalStore } from "react";
import { MAX_AUTHOR_LENGTH } from "../../shared/constants";

const STORAGE_KEY = "rooms.displayName";
const listeners = new Set<() => void>();

function randomGuestName(): string {
  const n = 1000 + Math.floor(Math.random() * 9000);
  return `Guest-${n}`;
}

export function normalizeDisplayName(raw: string): string {
  return raw.replace(/\s+/g, " ").trim().slice(0, MAX_AUTHOR_LENGTH);
}

let current: string | null = null;

function read(): string {
  if (current !== null) return current;
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage disabled (private mode): fall back to a per-tab name.
  }
  current = normalizeDisplayName(stored ?? "") || randomGuestName();
  if (!stored) {
    try {
      localStorage.setItem(STORAGE_KEY, current);
    } catch {
      // Not persisted; the name still works for this tab.
    }
  }
  return current;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_KEY) return;
    current = normalizeDisplayName(event.newValue ?? "") || current;
    listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

/** The name this browser posts and appears under; remembered in localStorage. */
export function useDisplayName(): [string, (name: string) => void] {
  const name = useSyncExternalStore(subscribe, read, read);
  const setName = useCallback((next: string) => {
    const normalized = normalizeDisplayName(next);
    if (!normalized) return;
    current = normalized;
    try {
      localStorage.setItem(STORAGE_KEY, normalized);
    } catch {
      // Keep it in memory only.
    }
    for (const listener of listeners) listener();
  }, []);
  return [name, setName];
}
