/**
 * The transcript's virtual rows (TanStack Virtual): only the rows in and
 * near view are rendered, so the page stays small however far back the
 * reader goes. The row holding keyboard focus stays rendered when it is
 * scrolled away, so focus never falls to the page; when "Load earlier
 * messages" goes away with focus on it, focus goes to the log.
 */
import { defaultRangeExtractor, type Range, useVirtualizer } from "@tanstack/react-virtual";
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef } from "react";
import type { RoomMessage } from "@/client/lib/messages";

/** A first guess at a row's height; each row is measured once rendered. */
const ESTIMATED_ROW_PX = 112;
/** Rows rendered beyond each edge of the view, so a fast scroll rarely shows a gap. */
const OVERSCAN_ROWS = 6;
/**
 * From the top of the scroll content to the first row: 16 px of padding and
 * a 64 px band holding "Load earlier messages" or the start of the room. Fixed,
 * so the rows' offsets do not move when the band's content changes.
 */
const LIST_TOP_PX = 80;

export function useTranscriptRows(
  scrollRef: RefObject<HTMLElement | null>,
  messages: RoomMessage[],
  showsLoadOlder: boolean
) {
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  const focusedIdRef = useRef<string | null>(null);
  const rangeExtractor = useCallback((range: Range) => {
    const indexes = defaultRangeExtractor(range);
    const focusedId = focusedIdRef.current;
    if (!focusedId) return indexes;
    const focused = messagesRef.current.findIndex((m) => m.id === focusedId);
    if (focused < 0 || indexes.includes(focused)) return indexes;
    return [...indexes, focused].sort((a, b) => a - b);
  }, []);
  const getItemKey = useCallback((index: number) => messages[index]?.id ?? index, [messages]);
  const virtualizer = useVirtualizer({
    count: messages.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    getItemKey,
    overscan: OVERSCAN_ROWS,
    scrollMargin: LIST_TOP_PX,
    // Open at the newest messages.
    initialOffset: () => LIST_TOP_PX + messagesRef.current.length * ESTIMATED_ROW_PX,
    // Older pages arrive at the start: keep the row in view where it was.
    anchorTo: "end",
    rangeExtractor,
    // Scrolling moves rows by writing their position; React renders only when the range changes.
    directDomUpdates: true,
    // Not inside the scroll event: a room shown again (RoomView.tsx) has its
    // scroll position restored, and a synchronous render there also ran every
    // effect of the room before its first frame. Rows entering the range
    // render in the next task; the overscan covers a frame's scroll. (A
    // keyboard move to a far message does not count on when rows render: it
    // keeps asking until the row shows, hooks/use-message-focus.ts.)
    useFlushSync: false
  });

  const loadOlderFocused = useRef(false);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onFocusIn = (event: FocusEvent) => {
      const target = event.target as HTMLElement;
      loadOlderFocused.current = target.matches("[data-load-older]");
      const row = target.closest<HTMLElement>("[data-row-id]");
      focusedIdRef.current = row?.dataset.rowId ?? null;
    };
    const onFocusOut = (event: FocusEvent) => {
      if (!el.contains(event.relatedTarget as Node | null)) focusedIdRef.current = null;
    };
    el.addEventListener("focusin", onFocusIn);
    el.addEventListener("focusout", onFocusOut);
    return () => {
      el.removeEventListener("focusin", onFocusIn);
      el.removeEventListener("focusout", onFocusOut);
    };
  }, [scrollRef]);
  useLayoutEffect(() => {
    if (!showsLoadOlder && loadOlderFocused.current) {
      loadOlderFocused.current = false;
      scrollRef.current?.focus({ preventScroll: true });
    }
  }, [showsLoadOlder, scrollRef]);

  /** The index of a loaded message, or -1. */
  const indexOf = useCallback((messageId: string) => messagesRef.current.findIndex((m) => m.id === messageId), []);

  return { virtualizer, indexOf };
}

const LOAD_OLDER_THRESHOLD_PX = 600;

/**
 * Loads an older page when the reader nears the top; and again after each
 * page while still near it (short messages). Returns the check, for the
 * container's scroll handler.
 */
export function useLoadOlderNearTop(
  scrollRef: RefObject<HTMLElement | null>,
  { reachedStart, loadingOlder, loadOlder }: { reachedStart: boolean; loadingOlder: boolean; loadOlder: () => unknown }
) {
  const maybeLoadOlder = useCallback(() => {
    const el = scrollRef.current;
    if (!el || reachedStart || loadingOlder) return;
    if (el.scrollTop < LOAD_OLDER_THRESHOLD_PX && el.scrollHeight > el.clientHeight) void loadOlder();
  }, [scrollRef, reachedStart, loadingOlder, loadOlder]);
  useEffect(() => {
    if (!loadingOlder) maybeLoadOlder();
  }, [loadingOlder, maybeLoadOlder]);
  return maybeLoadOlder;
}
