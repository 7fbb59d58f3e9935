/**
 * An open room's conversation, on the room's socket (hooks/use-room-socket.ts):
 * useAgentChat for the live window, older pages from REST merged in front
 * of it (hooks/use-older-pages.ts), and the actions (send, edit, regenerate,
 * retry, stop).
 *
 * useRoomChat suspends until the newest page of history has loaded (the
 * agents SDK calls `use()` on getInitialMessages), so render it inside
 * <Suspense>.
 */
import { useAgentChat } from "@cloudflare/ai-chat/react";
import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import { api, errorMessage } from "@/client/lib/api";
import { applyHeldFrames } from "@/client/lib/held-transcript";
import { fromChatMessage, messageText, type RoomMessage } from "@/client/lib/messages";
import { firstPage } from "@/client/lib/opened-page";
import { reactionStore } from "@/client/lib/reaction-store";
import { prefetchedRooms } from "@/client/lib/room-pages";
import { newTraceparent } from "@/client/lib/trace";
import { mergeNewestPage, rememberRoom, settled, warmRoom } from "@/client/lib/warm-rooms";
import type { MessageAuthor } from "@/shared/identity";
import type { MessagePage, RoomState } from "@/shared/protocol";
import type { ReplyRef } from "@/shared/replies";
import { type HistorySource, initialPageOf, loadNewestPage, useOlderPages } from "./use-older-pages";
import type { RoomSocket } from "./use-room-socket";
import { useStableCallback } from "./use-stable-callback";

const roomHistory = (roomId: string, socket: Pick<RoomSocket, "takeOpenedPage">): HistorySource => ({
  key: roomId,
  // A page carries its messages' reactions (lib/reaction-store.ts). The
  // newest page may have been fetched already, on hover (lib/room-pages.ts);
  // else it comes from REST or the socket's opening frame, whichever is
  // first (lib/opened-page.ts).
  page: async (query) => {
    const prefetched = query.before ? null : prefetchedRooms.take(roomId);
    const page = await (prefetched ??
      (query.before
        ? api.listMessages(roomId, query)
        : firstPage(socket.takeOpenedPage(), api.listMessages(roomId, query))));
    reactionStore(roomId).page(page);
    return page;
  }
});

/**
 * The room's first messages, once per socket (so per room view): the
 * framework forgets its cached promise when the chat hook's effects stop,
 * which a room kept mounted but hidden (components/RoomView.tsx) does, and
 * would then load the page again, and suspend, on the way back.
 */
const firstMessages = new WeakMap<object, Promise<RoomMessage[]>>();
function firstMessagesOf(socket: object, load: () => Promise<RoomMessage[]>): Promise<RoomMessage[]> {
  let promise = firstMessages.get(socket);
  if (!promise) {
    promise = load();
    firstMessages.set(socket, promise);
  }
  return promise;
}

type AgentChat = ReturnType<typeof useAgentChat<RoomState, RoomMessage>>;

/** Send, edit, regenerate, retry and stop, each reporting its failure as `actionError`. */
function useChatActions(chat: AgentChat, socket: RoomSocket, holdForEdit: (messageId: string) => void) {
  const [actionError, setActionError] = useState<string | null>(null);
  const { sendMessage, regenerate, stop, clearError, setMessages } = chat;
  const live = chat.messages;

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
    (item: { id: string; text: string; author?: MessageAuthor; createdAt: number; replyTo?: ReplyRef }) => {
      setMessages((list) =>
        list.some((m) => m.id === item.id)
          ? list
          : [
              ...list,
              {
                id: item.id,
                role: "user",
                parts: [{ type: "text", text: item.text }],
                metadata: {
                  createdAt: item.createdAt,
                  ...(item.author ? { author: item.author } : {}),
                  ...(item.replyTo ? { replyTo: item.replyTo } : {})
                }
              }
            ]
      );
    },
    [setMessages]
  );

  return {
    actionError,
    dismissActionError,
    send,
    appendStored,
    stop: stopStreaming,
    regenerate: regenerateLast,
    retry,
    editAndResend
  };
}

/**
 * The room's conversation. `warm` (a room page's, not a share viewer's):
 * a room this person had open lately starts from its warm copy, at once,
 * and is then refreshed from its newest page (lib/warm-rooms.ts).
 */
export function useRoomChat(
  socket: RoomSocket,
  roomId: string,
  source: HistorySource = roomHistory(roomId, socket),
  { warm = false }: { warm?: boolean } = {}
) {
  const sourceRef = useRef(source);
  sourceRef.current = source;
  const [warmCopy] = useState(() => (warm ? warmRoom(socket.selfId, roomId) : null));
  const chat = useAgentChat<RoomState, RoomMessage>({
    agent: socket.agent,
    // Loaded once per room view (firstMessagesOf).
    getInitialMessages: () =>
      firstMessagesOf(socket.agent, () => (warmCopy ? settled([...warmCopy]) : loadNewestPage(sourceRef.current))),
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
  const history = useOlderPages(chat.messages, chat.setMessages, sourceRef);
  useCatchUpOnJoin(socket, chat.setMessages, sourceRef);
  useWarmRoom({ warm, fromWarm: warmCopy !== null, selfId: socket.selfId, roomId, chat, sourceRef });
  const actions = useChatActions(chat, socket, history.holdForEdit);
  const busy = chat.status === "submitted" || chat.isStreaming || chat.isRecovering || socket.liveTurnRunning;

  return {
    messages: history.messages,
    /** Messages from useAgentChat only (the live window). */
    liveCount: chat.messages.length,
    status: chat.status,
    isStreaming: chat.isStreaming,
    isRecovering: chat.isRecovering,
    busy,
    error: chat.error,
    initialError: initialPageOf(source)?.error ?? null,
    reachedStart: history.reachedStart,
    loadingOlder: history.loadingOlder,
    olderError: history.olderError,
    loadOlder: history.loadOlder,
    serverError: socket.serverError,
    clearServerError: socket.clearServerError,
    ...actions
  };
}

export type RoomChat = ReturnType<typeof useRoomChat>;

/**
 * What the room's socket missed while it was not joined: every opening page
 * (the first connection's and each reconnect's) is merged into the live
 * list. By hand because nothing else brings it: a send's frame carries the
 * new message alone, and the framework's resume brings nothing when no
 * answer streams. Without it a socket that dropped, or that joined after the
 * page the room opened from was read (REST's, or one prefetched on hover),
 * would stay behind until the next answer. Then the transcript frames the
 * socket held while this transcript was not listening (lib/held-transcript.ts).
 * The pages' reactions go by the socket's own feed (hooks/use-reactions-feed.ts).
 */
function useCatchUpOnJoin(
  socket: Pick<RoomSocket, "onOpenedPage" | "onHeldFrames">,
  setMessages: AgentChat["setMessages"],
  sourceRef: RefObject<HistorySource>
) {
  const { onOpenedPage, onHeldFrames } = socket;
  // Each page once: a page merged again later would bring back what was replaced since.
  const mergedRef = useRef<MessagePage | null>(null);
  const merge = useStableCallback((page: MessagePage) => {
    if (mergedRef.current === page) return;
    mergedRef.current = page;
    const messages = page.messages.map(fromChatMessage);
    if (messages.length > 0) setMessages((held) => mergeNewestPage(held, messages));
  });
  useEffect(() => onOpenedPage(merge), [onOpenedPage, merge]);
  // After the opening page (the frames came after it): what the room sent
  // while this transcript was not yet listening, applied in order. Declared
  // after useAgentChat, whose listener is on by then: every later frame reaches it.
  useEffect(
    () =>
      onHeldFrames(({ frames, overflowed }) => {
        setMessages((held) => applyHeldFrames(held, frames));
        // More came than the socket keeps: the newest page is current for what it covers.
        if (overflowed) {
          loadNewestPage(sourceRef.current).then(
            (page) => page.length > 0 && setMessages((held) => mergeNewestPage(held, page)),
            () => {}
          );
        }
      }),
    [onHeldFrames, setMessages, sourceRef]
  );
}

/** Keeps the room's warm copy current; a room that started from one is refreshed from its newest page once. */
function useWarmRoom({
  warm,
  fromWarm,
  selfId,
  roomId,
  chat,
  sourceRef
}: {
  warm: boolean;
  fromWarm: boolean;
  selfId: string;
  roomId: string;
  chat: Pick<AgentChat, "messages" | "setMessages">;
  sourceRef: RefObject<HistorySource>;
}) {
  useEffect(() => {
    if (warm) rememberRoom(selfId, roomId, chat.messages);
  }, [warm, selfId, roomId, chat.messages]);
  const { setMessages } = chat;
  useEffect(() => {
    if (!fromWarm) return;
    let current = true;
    loadNewestPage(sourceRef.current).then(
      (page) => current && page.length > 0 && setMessages((held) => mergeNewestPage(held, page)),
      () => {}
    );
    return () => {
      current = false;
    };
  }, [fromWarm, setMessages, sourceRef]);
}
