/**
 * The room's transcript on the client: the newest page (loaded before the
 * chat hook starts), the live window useAgentChat holds, and older pages
 * loaded over REST in front of it on request. The pure part (re-anchoring,
 * where the shown transcript starts) is lib/history.ts.
 */
import { type RefObject, useCallback, useMemo, useRef, useState } from "react";
import { ApiError, errorMessage } from "@/client/lib/api";
import { type History, reanchor, shownFrom } from "@/client/lib/history";
import { fromChatMessage, MessageIdentityCache, type RoomMessage } from "@/client/lib/messages";
import { PAGE_SIZE } from "@/client/lib/room-pages";
import type { MessagePage } from "@/shared/protocol";

/** Where pages of a room's history come from: its REST API, or a share link's. */
export interface HistorySource {
  /** Names the source's first page in the cache below. */
  key: string;
  page: (query: { before?: string; limit: number }) => Promise<MessagePage>;
}

// ── Initial page (newest first) ──

interface InitialPageInfo {
  nextCursor: string | null;
  error?: ApiError;
}
const initialPages = new Map<string, InitialPageInfo>();

export const initialPageOf = (source: HistorySource) => initialPages.get(source.key);

export async function loadNewestPage(source: HistorySource): Promise<RoomMessage[]> {
  try {
    const page = await source.page({ limit: PAGE_SIZE });
    initialPages.set(source.key, { nextCursor: page.nextCursor });
    return page.messages.map(fromChatMessage);
  } catch (error) {
    initialPages.set(source.key, {
      nextCursor: null,
      error: error instanceof ApiError ? error : new ApiError(errorMessage(error), 0)
    });
    return [];
  }
}

type SetMessages = (update: (list: RoomMessage[]) => RoomMessage[]) => void;

// ── Older pages merged in front of the live window ──

export function useOlderPages(live: RoomMessage[], setMessages: SetMessages, sourceRef: RefObject<HistorySource>) {
  const initialInfo = initialPageOf(sourceRef.current);
  const [history, setHistory] = useState<History>(() => ({
    live,
    older: [],
    reachedStart: initialInfo ? initialInfo.nextCursor === null : false
  }));
  let current = history;
  if (live !== history.live) {
    current = reanchor(history, live);
    setHistory(current);
  }

  const [cache] = useState(() => new MessageIdentityCache());
  const held = useMemo(() => {
    const liveIds = new Set(current.live.map((m) => m.id));
    const merged = current.older.length
      ? [...current.older.filter((m) => !liveIds.has(m.id)), ...current.live]
      : current.live;
    return cache.stabilize(merged);
  }, [cache, current.older, current.live]);

  // The transcript starts at the first message it showed (lib/history.ts, shownFrom).
  const [startId, setStartId] = useState<string | null>(null);
  const hidden = shownFrom(held, startId);
  const firstShownId = held[hidden]?.id ?? null;
  if (firstShownId !== null && firstShownId !== startId) setStartId(firstShownId);
  const messages = useMemo(() => (hidden > 0 ? held.slice(hidden) : held), [held, hidden]);

  const [loadingOlder, setLoadingOlder] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);
  const loadingRef = useRef(false);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  const reachedStart = current.reachedStart && hidden === 0;
  const heldRef = useRef(held);
  heldRef.current = held;
  const hiddenRef = useRef(hidden);
  hiddenRef.current = hidden;

  const loadOlder = useCallback(async () => {
    if (loadingRef.current || reachedStart) return;
    // Older messages already here come first, a page at a time, without asking the server.
    if (hiddenRef.current > 0) {
      setStartId(heldRef.current[Math.max(0, hiddenRef.current - PAGE_SIZE)].id);
      return;
    }
    const before = messagesRef.current[0]?.id;
    if (!before) return;
    loadingRef.current = true;
    setLoadingOlder(true);
    setOlderError(null);
    try {
      const page = await sourceRef.current.page({ before, limit: PAGE_SIZE });
      setHistory((h) => {
        const known = new Set([...h.older, ...h.live].map((m) => m.id));
        const fresh = page.messages.map(fromChatMessage).filter((m) => !known.has(m.id));
        return { ...h, older: [...fresh, ...h.older], reachedStart: page.nextCursor === null };
      });
    } catch (error) {
      setOlderError(errorMessage(error));
    } finally {
      loadingRef.current = false;
      setLoadingOlder(false);
    }
  }, [reachedStart, sourceRef]);

  /**
   * The chat hook can only edit messages it holds; a question from an older
   * page joins its list first.
   */
  const olderRef = useRef(history.older);
  olderRef.current = history.older;
  const liveRef = useRef(live);
  liveRef.current = live;
  const holdForEdit = useCallback(
    (messageId: string) => {
      if (liveRef.current.some((m) => m.id === messageId)) return;
      setMessages((list) => {
        const ids = new Set(list.map((m) => m.id));
        return [...olderRef.current.filter((m) => !ids.has(m.id)), ...list];
      });
    },
    [setMessages]
  );

  return { messages, reachedStart, loadingOlder, olderError, loadOlder, holdForEdit };
}
