/**
 * Find in room (Ctrl+F in a room, or the header's search button): the room's
 * own full-text index answers (`GET /api/search?room=`), not the page, so it
 * finds messages however far back, loaded or not (the transcript is virtual:
 * most of it is never in the page). Matches are walked in time order; each
 * one opens the room at that message (`?m=`), scrolled to and highlighted,
 * with the matched words marked here.
 */
import { ChevronDown, ChevronUp, X } from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { useDebouncedSearch } from "@/client/hooks/use-debounced-search";
import { api } from "@/client/lib/api";
import type { SearchHit } from "@/shared/search";
import { Highlighted } from "./Highlighted";
import { IconButton } from "./ui/Button";
import { Spinner } from "./ui/Spinner";

/** The most matches one search returns (the search API's limit). */
const MATCH_LIMIT = 100;

/** The room's matches, oldest first, so "older" and "newer" mean what they say. */
async function findInRoom(roomId: string, query: string, signal: AbortSignal): Promise<SearchHit[]> {
  const response = await api.findInRoom(roomId, query, MATCH_LIMIT, signal);
  if (response.partial && response.results.length === 0) {
    // The room's first search builds its index; in a very large room that can miss the deadline.
    throw new Error("The room is still indexing its history. Try again in a moment.");
  }
  return [...response.results].sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0));
}

/** "Searching…", the error, "No matches", or "3 of 12" ("+" at the search's limit). */
function matchSummary(state: ReturnType<typeof useDebouncedSearch<SearchHit[]>>, index: number, count: number): string {
  if (state.status === "loading") return "Searching…";
  if (state.status === "error") return state.message;
  if (state.status !== "done") return "";
  if (count === 0) return "No matches";
  return `${index + 1} of ${count}${count >= MATCH_LIMIT ? "+" : ""}`;
}

interface FindInRoomProps {
  roomId: string;
  /** Bumped to focus the box again (Ctrl+F while open). */
  focusSignal: number;
  /** Show this message (open the room at it). */
  onShow: (messageId: string) => void;
  onClose: () => void;
}

export function FindInRoom({ roomId, focusSignal, onShow, onClose }: FindInRoomProps) {
  const [query, setQuery] = useState("");
  const state = useDebouncedSearch(query, (q, signal) => findInRoom(roomId, q, signal), roomId);
  const matches = useMemo(() => (state.status === "done" ? state.value : []), [state]);
  const [index, setIndex] = useState(-1);
  const inputRef = useRef<HTMLInputElement>(null);
  const showRef = useRef(onShow);
  showRef.current = onShow;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the signal is the trigger
  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [focusSignal]);

  // New matches: start at the newest, nearest to where the reader usually is.
  useEffect(() => {
    if (matches.length === 0) {
      setIndex(-1);
      return;
    }
    setIndex(matches.length - 1);
    showRef.current(matches[matches.length - 1].messageId);
  }, [matches]);

  const go = (step: -1 | 1) => {
    if (matches.length === 0) return;
    const next = (index + step + matches.length) % matches.length;
    setIndex(next);
    onShow(matches[next].messageId);
  };

  const current = index >= 0 ? matches[index] : undefined;
  const summary = matchSummary(state, index, matches.length);

  return (
    <search
      aria-label="Find in this room"
      className="shrink-0 border-b border-edge-quiet bg-surface-well px-2 py-1.5 sm:px-4"
    >
      <div className="mx-auto flex max-w-3xl items-center gap-1.5">
        <label htmlFor="find-in-room" className="sr-only">
          Find in this room
        </label>
        <input
          ref={inputRef}
          id="find-in-room"
          type="search"
          value={query}
          placeholder="Find in this room"
          autoComplete="off"
          enterKeyHint="search"
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              // Enter walks back in time (the usual direction in a chat); Shift+Enter forward.
              go(event.shiftKey ? 1 : -1);
            } else if (event.key === "Escape") {
              event.preventDefault();
              event.stopPropagation();
              onClose();
            }
          }}
          className="h-8 min-w-0 flex-1 rounded-lg border border-edge-strong bg-field px-2.5 text-sm text-fg placeholder:text-fg-muted focus:border-accent-line focus:ring-3 focus:ring-accent-line/20 focus:outline-none pointer-coarse:h-11"
        />
        <span
          role="status"
          aria-live="polite"
          className="flex min-w-16 items-center justify-end gap-1.5 text-xs text-fg-subtle tabular-nums"
        >
          {state.status === "loading" && <Spinner className="size-3" />}
          {summary}
        </span>
        <IconButton size="sm" label="Older match" disabled={matches.length < 2} onClick={() => go(-1)}>
          <ChevronUp />
        </IconButton>
        <IconButton size="sm" label="Newer match" disabled={matches.length < 2} onClick={() => go(1)}>
          <ChevronDown />
        </IconButton>
        <IconButton size="sm" label="Close find" onClick={onClose}>
          <X />
        </IconButton>
      </div>
      {current && (
        <p
          className="mx-auto mt-1 max-w-3xl truncate px-1 text-xs text-fg-subtle"
          data-find-current={current.messageId}
        >
          {current.author && <span className="font-medium text-fg-2">{current.author}: </span>}
          <Highlighted text={current.snippet} marks={current.marks} />
        </p>
      )}
    </search>
  );
}
