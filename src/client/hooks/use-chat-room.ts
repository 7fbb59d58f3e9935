/**
 * Everything one open room needs:
 *
 *   useRoomSocket   the room's WebSocket (a facet under the overseer):
 *                   synced RoomState, presence, connection status
 *   useRoomChat     useAgentChat on that socket, plus older pages from REST
 *                   merged in front of the live window, plus the actions
 *
 * useRoomChat suspends until the newest page of history has loaded (the
 * agents SDK calls `use()` on getInitialMessages), so render it inside
 * <Suspense>.
 */
import { useAgentChat } from "@cloudflare/ai-chat/react";
import { MessageType } from "@cloudflare/ai-chat/types";
import { useAgent } from "agents/react";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { DEFAULT_WORKSPACE } from "../../shared/constants";
import { parseWireError } from "../../shared/errors";
import type { Identity, MessageAuthor } from "../../shared/identity";
import type { MessagePage, PresenceUser, RoomState } from "../../shared/protocol";
import { ApiError, api, errorMessage } from "../lib/api";
import { type History, reanchor, shownFrom } from "../lib/history";
import { fromChatMessage, MessageIdentityCache, messageText, type RoomMessage } from "../lib/messages";
import { newTraceparent } from "../lib/trace";
import type { ConnectionStatus } from "./use-room-list";

const PAGE_SIZE = 50;

/** A callback with a stable identity that always runs the latest closure. */
function useStableCallback<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const ref = useRef(fn);
  useLayoutEffect(() => {
    ref.current = fn;
  });
  return useCallback((...args: A) => ref.current(...args), []);
}

// ── The socket ──

/**
 * The socket acts as the signed-in identity (the session cookie goes with
 * the upgrade); the server captures it at connect, so a rename reconnects.
 * A share link's viewer connects at `basePath` instead (the link's own
 * socket address), which the server routes to the one room it names.
 */
export function useRoomSocket(roomId: string, self: Identity, options: { basePath?: string } = {}) {
  const [status, setStatus] = useState<ConnectionStatus>("connecting");
  const [presence, setPresence] = useState<PresenceUser[]>([]);
  /** The last refusal the room sent us (rate limit, too large, …). */
  const [serverError, setServerError] = useState<string | null>(null);
  const sendRef = useRef<(data: string) => void>(() => {});
  /** The chat turn streaming in this room right now, whoever started it. */
  const activeTurnRef = useRef<string | null>(null);
  /**
   * A persona or panel turn the room announced (`rooms_turn`): its answers
   * stream outside the chat hook's view, so this is how we know to offer Stop.
   */
  const [liveTurn, setLiveTurn] = useState<string | null>(null);
  /** Raw text frames, for hooks that speak their own part of the protocol (the outbox). */
  const frameListenersRef = useRef(new Set<(data: string) => void>());

  const sub = useMemo(
    () => (options.basePath ? undefined : [{ agent: "ChatRoom", name: roomId }]),
    [roomId, options.basePath]
  );
  const agent = useAgent<RoomState>({
    agent: "OverseerAgent",
    name: DEFAULT_WORKSPACE,
    sub,
    ...(options.basePath ? { basePath: options.basePath } : {}),
    onOpen: () => setStatus("open"),
    onClose: () => {
      setStatus((s) => (s === "closed" ? s : "reconnecting"));
      setPresence([]);
      // The room greets us with the turn still running when we are back.
      setLiveTurn(null);
    },
    onConnectionError: () => setStatus("closed"),
    onMessage: (event: MessageEvent) => {
      if (typeof event.data !== "string") return;
      for (const listener of frameListenersRef.current) listener(event.data);
      if (event.data.includes(`"${MessageType.CF_AGENT_USE_CHAT_RESPONSE}"`)) {
        try {
          const frame = JSON.parse(event.data) as { type?: string; id?: string; done?: boolean; error?: boolean };
          if (frame.type !== MessageType.CF_AGENT_USE_CHAT_RESPONSE || typeof frame.id !== "string") return;
          if (frame.done || frame.error) {
            if (activeTurnRef.current === frame.id) activeTurnRef.current = null;
            const ended = frame.id;
            setLiveTurn((current) => (current === ended ? null : current));
          } else {
            activeTurnRef.current = frame.id;
          }
        } catch {
          // Not JSON: ignore.
        }
        return;
      }
      if (!event.data.includes('"rooms_')) return;
      try {
        const frame = JSON.parse(event.data) as {
          type?: string;
          users?: unknown;
          requestId?: unknown;
          running?: unknown;
        };
        if (frame.type === "rooms_turn" && typeof frame.requestId === "string") {
          const requestId = frame.requestId;
          if (frame.running === true) {
            activeTurnRef.current = requestId;
            setLiveTurn(requestId);
          } else {
            if (activeTurnRef.current === requestId) activeTurnRef.current = null;
            setLiveTurn((current) => (current === requestId ? null : current));
          }
        } else if (frame.type === "rooms_presence" && Array.isArray(frame.users)) {
          setPresence(frame.users as PresenceUser[]);
        } else {
          const error = parseWireError(frame);
          if (error) setServerError(error.message);
        }
      } catch {
        // Not ours.
      }
    }
  });
  sendRef.current = (data) => agent.send(data);

  /**
   * Cancel the running turn even when another person started it: the chat
   * hook only cancels turns it sent or resumed, not ones it merely watches.
   */
  const cancelActiveTurn = useCallback(() => {
    const id = activeTurnRef.current;
    if (id) sendRef.current(JSON.stringify({ type: MessageType.CF_AGENT_CHAT_REQUEST_CANCEL, id }));
  }, []);

  // The room knows us by the identity captured at connect: after a rename,
  // connect again so presence and new messages carry the new name.
  const connectedName = useRef(self.name);
  useEffect(() => {
    if (connectedName.current === self.name) return;
    connectedName.current = self.name;
    agent.reconnect();
  }, [self.name, agent]);

  const onFrame = useCallback((listener: (data: string) => void) => {
    frameListenersRef.current.add(listener);
    return () => {
      frameListenersRef.current.delete(listener);
    };
  }, []);
  const sendFrame = useCallback((data: string) => sendRef.current(data), []);

  return {
    agent,
    status,
    onFrame,
    sendFrame,
    presence,
    /** Our identity's id, as presence entries name it. */
    selfId: self.id,
    self,
    state: agent.state,
    connectionError: agent.connectionError,
    serverError,
    clearServerError: useCallback(() => setServerError(null), []),
    cancelActiveTurn,
    /** A persona or panel turn runs in the room (anyone's). */
    liveTurnRunning: liveTurn !== null
  };
}

export type RoomSocket = ReturnType<typeof useRoomSocket>;

// ── Initial page (newest first) ──

interface InitialPageInfo {
  nextCursor: string | null;
  error?: ApiError;
}
const initialPages = new Map<string, InitialPageInfo>();

/** Where pages of a room's history come from: its REST API, or a share link's. */
export interface HistorySource {
  /** Names the source's first page in the cache below. */
  key: string;
  page: (query: { before?: string; limit: number }) => Promise<MessagePage>;
}

const roomHistory = (roomId: string): HistorySource => ({
  key: roomId,
  page: (query) => api.listMessages(roomId, query)
});

async function loadNewestPage(source: HistorySource): Promise<RoomMessage[]> {
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

// ── Older pages merged in front of the live window ──

export function useRoomChat(socket: RoomSocket, roomId: string, source: HistorySource = roomHistory(roomId)) {
  const sourceRef = useRef(source);
  sourceRef.current = source;
  const chat = useAgentChat<RoomState, RoomMessage>({
    agent: socket.agent,
    // Called once per socket address (the framework caches the promise).
    getInitialMessages: () => loadNewestPage(sourceRef.current),
    // The transcript is server-authoritative; our local list is a window.
    syncMessagesToServer: false,
    // The room rebuilds every request from its own transcript and reads
    // only our last message: the new or edited question, or the one to
    // answer again. So that is all we send (the framework would send our
    // whole list). The traceparent starts this send's trace (see README, Traces).
    prepareSendMessagesRequest: ({ messages }) => ({
      body: { messages: messages.slice(-1), traceparent: newTraceparent() }
    })
  });
  const live = chat.messages;
  const initialInfo = initialPages.get(source.key);

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

  // ── Older pages ──
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
  }, [reachedStart]);

  /**
   * The chat hook can only edit messages it holds; a question from an older
   * page joins its list first.
   */
  const setMessages = chat.setMessages;
  const holdForEdit = useStableCallback((messageId: string) => {
    if (live.some((m) => m.id === messageId)) return;
    setMessages((list) => {
      const ids = new Set(list.map((m) => m.id));
      return [...history.older.filter((m) => !ids.has(m.id)), ...list];
    });
  });

  // ── Actions ──
  const [actionError, setActionError] = useState<string | null>(null);
  const { sendMessage, regenerate, stop, clearError } = chat;

  /**
   * Shown on our own message until the server's copy arrives. The server
   * ignores it and writes the author and time itself from who we are.
   */
  const ownMetadata = () => ({ author: { id: socket.self.id, name: socket.self.name }, createdAt: Date.now() });

  const send = useStableCallback((text: string) => {
    setActionError(null);
    void sendMessage({ text, metadata: ownMetadata() }).catch((error: unknown) => setActionError(errorMessage(error)));
  });

  const regenerateLast = useStableCallback(async () => {
    setActionError(null);
    try {
      clearError();
      await regenerate();
    } catch (error) {
      setActionError(errorMessage(error));
    }
  });

  const editAndResend = useStableCallback(async (messageId: string, text: string) => {
    setActionError(null);
    try {
      clearError();
      holdForEdit(messageId);
      await sendMessage({ text, messageId, metadata: ownMetadata() });
    } catch (error) {
      setActionError(errorMessage(error));
    }
  });

  /**
   * Retry after a failure: a failed answer is regenerated; a question the
   * server refused (rate limit, too long, …) is sent again as a new message.
   */
  const retry = useStableCallback(async () => {
    const last = live.at(-1);
    if (last?.role === "user" && chat.error) {
      clearError();
      setMessages((list) => list.filter((m) => m.id !== last.id));
      socket.clearServerError();
      send(messageText(last));
      return;
    }
    await regenerateLast();
  });

  const stopStreaming = useStableCallback(() => {
    socket.cancelActiveTurn();
    void stop();
  });
  const dismissActionError = useCallback(() => setActionError(null), []);

  /** An outbox send the room has stored: it joins the transcript (the room does not echo it back to us). */
  const appendStored = useCallback(
    (item: { id: string; text: string; author?: MessageAuthor; createdAt: number }) => {
      setMessages((list) =>
        list.some((m) => m.id === item.id)
          ? list
          : [
              ...list,
              {
                id: item.id,
                role: "user",
                parts: [{ type: "text", text: item.text }],
                metadata: { createdAt: item.createdAt, ...(item.author ? { author: item.author } : {}) }
              }
            ]
      );
    },
    [setMessages]
  );

  const busy = chat.status === "submitted" || chat.isStreaming || chat.isRecovering || socket.liveTurnRunning;

  return {
    messages,
    /** Messages from useAgentChat only (the live window). */
    liveCount: live.length,
    status: chat.status,
    isStreaming: chat.isStreaming,
    isRecovering: chat.isRecovering,
    busy,
    error: chat.error,
    actionError,
    dismissActionError,
    initialError: initialInfo?.error ?? null,
    reachedStart,
    loadingOlder,
    olderError,
    loadOlder,
    send,
    appendStored,
    stop: stopStreaming,
    regenerate: regenerateLast,
    retry,
    serverError: socket.serverError,
    clearServerError: socket.clearServerError,
    editAndResend
  };
}

export type RoomChat = ReturnType<typeof useRoomChat>;
