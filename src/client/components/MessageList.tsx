/**
 * The conversation: a scroll container that
 * - sticks to the bottom while new tokens arrive, until the user scrolls up
 *   (then a "Jump to latest" button appears);
 * - loads older pages when the user nears the top, keeping what they were
 *   looking at in place;
 * - renders rows that are memoised, so a token re-renders one row, and that
 *   skip layout off screen (content-visibility), so long rooms stay smooth;
 * - renders only the newest RENDER_WINDOW rows until the reader scrolls up,
 *   because the server may hand us its whole in-memory window (thousands of
 *   messages) at once.
 */

import { AlertTriangle, ArrowDown, MessagesSquare, RotateCcw } from "lucide-react";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { authorId, authorName } from "../../shared/identity";
import type { RoomChat } from "../hooks/use-chat-room";
import type { NewMessagesStart } from "../hooks/use-unread";
import { cn } from "../lib/cn";
import type { RoomMessage } from "../lib/messages";
import { MessageErrorBoundary } from "./MessageErrorBoundary";
import { MessageItem, type MessageItemProps } from "./MessageItem";
import { NewMessagesDivider } from "./NewMessages";
import { AssistantAvatar } from "./ui/Avatar";
import { Button } from "./ui/Button";
import { Spinner, TypingDots } from "./ui/Spinner";

const STICK_THRESHOLD_PX = 80;
/** Rows rendered at first; more are rendered as the reader scrolls up. */
const RENDER_WINDOW = 120;
const RENDER_STEP = 100;
const LOAD_OLDER_THRESHOLD_PX = 600;
const GROUP_WINDOW_MS = 5 * 60_000;

/** Legacy messages carry a bare name; identity-era ones an id. */
const authorKey = (author: unknown) => authorId(author) ?? authorName(author);

function isGrouped(prev: RoomMessage | undefined, message: RoomMessage): boolean {
  if (!prev || prev.role !== message.role) return false;
  if (prev.metadata?.error) return false;
  if (prev.metadata?.persona?.id !== message.metadata?.persona?.id) return false;
  if (message.role === "user" && authorKey(prev.metadata?.author) !== authorKey(message.metadata?.author)) return false;
  const a = prev.metadata?.createdAt;
  const b = message.metadata?.createdAt;
  return a !== undefined && b !== undefined && b - a < GROUP_WINDOW_MS;
}

/** A message and what depends on its neighbour, inside its error boundary; `newFrom` puts the "N new messages" divider before it. */
function MessageRow({
  previous,
  newFrom,
  ...props
}: Omit<MessageItemProps, "grouped"> & { previous: RoomMessage | undefined; newFrom?: number }) {
  return (
    <>
      {newFrom !== undefined && <NewMessagesDivider count={newFrom} />}
      <MessageItem {...props} grouped={newFrom === undefined && isGrouped(previous, props.message)} />
    </>
  );
}

export interface MessageListProps {
  chat: RoomChat;
  roomName: string;
  /** The signed-in identity's id: only its own messages can be edited. */
  selfId: string;
  connected: boolean;
  /** Bumped by the composer on send: scroll to the bottom and stick. */
  stickSignal: number;
  onFork?: (messageId: string) => void;
  /** Where the messages new to the reader started when the room opened (hooks/use-unread.ts). */
  newMessages?: NewMessagesStart | null;
}

export function MessageList({ chat, roomName, selfId, connected, stickSignal, onFork, newMessages }: MessageListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const stickRef = useRef(true);
  const [atBottom, setAtBottom] = useState(true);
  const anchorRef = useRef<{ id: string; top: number } | null>(null);
  const { messages: allMessages, loadOlder, reachedStart, loadingOlder } = chat;

  // ── Render window ──
  const [renderCount, setRenderCount] = useState(RENDER_WINDOW);
  const [seenLast, setSeenLast] = useState<string | undefined>(allMessages.at(-1)?.id);
  const lastId = allMessages.at(-1)?.id;
  if (lastId !== seenLast) {
    // Messages appended while the reader is scrolled up stay rendered on top
    // of what they were reading, rather than pushing rows out of the window.
    if (!stickRef.current && seenLast !== undefined) {
      const previousIndex = allMessages.findIndex((m) => m.id === seenLast);
      const appended = previousIndex >= 0 ? allMessages.length - 1 - previousIndex : 0;
      if (appended > 0) setRenderCount((c) => c + appended);
    }
    setSeenLast(lastId);
  }
  const hiddenAbove = Math.max(0, allMessages.length - renderCount);
  const messages = hiddenAbove > 0 ? allMessages.slice(hiddenAbove) : allMessages;

  const scrollToBottom = useCallback((smooth = false) => {
    const el = scrollRef.current;
    if (!el) return;
    stickRef.current = true;
    setAtBottom(true);
    el.scrollTo({ top: el.scrollHeight, behavior: smooth ? "smooth" : "auto" });
  }, []);

  // Follow the content while stuck to the bottom (streaming, new messages,
  // late-loading Markdown or highlighting changing heights).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const content = contentRef.current;
    if (!el || !content) return;
    const observer = new ResizeObserver(() => {
      if (stickRef.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(content);
    el.scrollTop = el.scrollHeight;
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (stickSignal > 0) scrollToBottom();
  }, [stickSignal, scrollToBottom]);

  /** Remember the first visible row, so a prepend can keep it in place. */
  const rememberAnchor = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top;
    for (const row of el.querySelectorAll<HTMLElement>("[data-message-id]")) {
      const rect = row.getBoundingClientRect();
      const id = row.dataset.messageId;
      if (id && rect.bottom > top) {
        anchorRef.current = { id, top: rect.top - top };
        return;
      }
    }
  }, []);

  /** Show more of what we hold, or fetch the next older page. */
  const showOlder = useCallback(() => {
    rememberAnchor();
    if (hiddenAbove > 0) setRenderCount((c) => c + RENDER_STEP);
    else void loadOlder();
  }, [hiddenAbove, loadOlder, rememberAnchor]);

  const maybeLoadOlder = useCallback(() => {
    const el = scrollRef.current;
    if (!el || (reachedStart && hiddenAbove === 0) || loadingOlder) return;
    if (el.scrollTop < LOAD_OLDER_THRESHOLD_PX && el.scrollHeight > el.clientHeight) showOlder();
  }, [reachedStart, hiddenAbove, loadingOlder, showOlder]);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    const stuck = distance < STICK_THRESHOLD_PX;
    stickRef.current = stuck;
    setAtBottom(stuck);
    maybeLoadOlder();
  }, [maybeLoadOlder]);

  // After older messages were prepended, put the remembered row back where
  // it was (a no-op when the browser's scroll anchoring already did).
  const firstId = messages[0]?.id;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new first message is the trigger; the anchor is in a ref
  useLayoutEffect(() => {
    const anchor = anchorRef.current;
    const el = scrollRef.current;
    if (!anchor || !el) return;
    const row = el.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(anchor.id)}"]`);
    anchorRef.current = null;
    if (!row || stickRef.current) return;
    const delta = row.getBoundingClientRect().top - el.getBoundingClientRect().top - anchor.top;
    if (Math.abs(delta) > 1) el.scrollTop += delta;
  }, [firstId]);

  // Reaching the start removes "Load earlier messages": if it had focus,
  // hand focus to the log rather than let it fall to the page.
  const showsLoadOlder = (!reachedStart || hiddenAbove > 0) && messages.length > 0;
  const loadOlderFocused = useRef(false);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onFocusIn = (event: FocusEvent) => {
      loadOlderFocused.current = (event.target as HTMLElement).matches("[data-load-older]");
    };
    el.addEventListener("focusin", onFocusIn);
    return () => el.removeEventListener("focusin", onFocusIn);
  }, []);
  useLayoutEffect(() => {
    if (!showsLoadOlder && loadOlderFocused.current) {
      loadOlderFocused.current = false;
      scrollRef.current?.focus({ preventScroll: true });
    }
  }, [showsLoadOlder]);

  // Still near the top after a page (short messages)? Keep loading.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each render of a page is the trigger to measure again
  useEffect(() => {
    if (!loadingOlder) maybeLoadOlder();
  }, [loadingOlder, renderCount, maybeLoadOlder]);

  const last = messages.at(-1);
  const busy = chat.busy;
  const waitingForAnswer =
    (chat.status === "submitted" || chat.isStreaming || chat.isRecovering) && last?.role !== "assistant";
  const showStreamError =
    chat.error && chat.status === "error" && !(last?.role === "assistant" && last.metadata?.error);

  return (
    <div className="relative min-h-0 flex-1">
      <div
        ref={scrollRef}
        onScroll={onScroll}
        className="thin-scrollbar h-full overflow-y-auto overscroll-contain"
        role="log"
        // Not live: a streamed answer would be read as dozens of insertions.
        // The room's status region (LiveAnnouncer) speaks for it.
        aria-live="off"
        aria-label={`Messages in ${roomName}`}
        aria-busy={busy}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so the keyboard can scroll it
        tabIndex={0}
      >
        <div ref={contentRef} className="mx-auto flex min-h-full w-full max-w-3xl flex-col pt-4 pb-6">
          {(!reachedStart || hiddenAbove > 0) && messages.length > 0 && (
            <div className="flex h-12 items-center justify-center text-sm text-zinc-500 dark:text-zinc-400">
              {chat.olderError ? (
                <span className="flex items-center gap-2">
                  <span className="text-red-600 dark:text-red-400">{chat.olderError}</span>
                  <Button size="sm" variant="ghost" onClick={() => void loadOlder()}>
                    Try again
                  </Button>
                </span>
              ) : (
                // One button, loading or not, so focus stays on it across a load.
                <Button
                  size="sm"
                  variant="ghost"
                  data-load-older
                  aria-disabled={loadingOlder || undefined}
                  onClick={() => !loadingOlder && showOlder()}
                >
                  {loadingOlder ? (
                    <>
                      <Spinner /> Loading earlier messages…
                    </>
                  ) : (
                    "Load earlier messages"
                  )}
                </Button>
              )}
            </div>
          )}

          {reachedStart && hiddenAbove === 0 && messages.length > 0 && (
            <div className="px-4 pt-6 pb-4 sm:px-6">
              <div className="flex items-center gap-3 text-sm text-zinc-500 dark:text-zinc-400">
                <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
                <span>
                  This is the start of <span className="font-medium text-zinc-700 dark:text-zinc-300">{roomName}</span>
                </span>
                <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
              </div>
            </div>
          )}

          {messages.length === 0 && !waitingForAnswer && (
            <div className="m-auto flex max-w-sm flex-col items-center px-6 py-16 text-center">
              <div className="mb-4 flex size-12 items-center justify-center rounded-2xl bg-indigo-50 text-indigo-600 dark:bg-indigo-950/60 dark:text-indigo-300">
                <MessagesSquare className="size-6" aria-hidden="true" />
              </div>
              <h2 className="text-base font-semibold text-zinc-900 dark:text-zinc-100">No messages yet</h2>
              <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
                Write the first message below. Everyone in this room sees the answer as it streams in.
              </p>
            </div>
          )}

          {messages.map((message, index) => {
            const isLast = index === messages.length - 1;
            return (
              <MessageErrorBoundary key={message.id} messageId={message.id} resetKey={message}>
                <MessageRow
                  message={message}
                  previous={messages[index - 1] ?? allMessages[hiddenAbove - 1]}
                  newFrom={message.id === newMessages?.messageId ? newMessages.count : undefined}
                  streaming={
                    isLast && message.role === "assistant" && (chat.isStreaming || chat.status === "submitted")
                  }
                  canRegenerate={isLast && message.role === "assistant" && !busy && connected}
                  canEdit={
                    message.role === "user" && authorId(message.metadata?.author) === selfId && !busy && connected
                  }
                  onRegenerate={chat.regenerate}
                  onEdit={chat.editAndResend}
                  onFork={onFork}
                />
              </MessageErrorBoundary>
            );
          })}

          {waitingForAnswer && (
            <div role="status" className="flex gap-3 px-4 pt-3 pb-2 sm:px-6" aria-label="Assistant is thinking">
              <AssistantAvatar />
              <div className="flex h-8 items-center gap-2 text-sm text-zinc-500 dark:text-zinc-400">
                <TypingDots className="text-zinc-400" />
                <span>{chat.isRecovering ? "Recovering the answer…" : "Thinking…"}</span>
              </div>
            </div>
          )}

          {showStreamError && (
            <div className="px-4 pt-2 sm:px-6">
              <div className="ml-11 flex flex-wrap items-center gap-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-200">
                <AlertTriangle className="size-4 shrink-0" aria-hidden="true" />
                <span className="min-w-0 flex-1 break-words">{chat.error?.message || "The answer failed."}</span>
                {connected && (
                  <Button size="sm" onClick={chat.retry}>
                    <RotateCcw className="size-3.5" aria-hidden="true" />
                    Retry
                  </Button>
                )}
              </div>
            </div>
          )}

          {chat.serverError && chat.serverError !== chat.error?.message && !chat.actionError && (
            <div className="px-4 pt-2 sm:px-6">
              <div className="ml-11 flex items-center gap-3 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200">
                <AlertTriangle className="size-4 shrink-0" aria-hidden="true" />
                <span className="min-w-0 flex-1 break-words">{chat.serverError}</span>
                <Button size="sm" variant="ghost" onClick={chat.clearServerError}>
                  Dismiss
                </Button>
              </div>
            </div>
          )}

          {chat.actionError && (
            <div className="px-4 pt-2 sm:px-6">
              <div className="ml-11 flex items-center gap-3 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-200">
                <AlertTriangle className="size-4 shrink-0" aria-hidden="true" />
                <span className="min-w-0 flex-1 break-words">{chat.actionError}</span>
                <Button size="sm" variant="ghost" onClick={chat.dismissActionError}>
                  Dismiss
                </Button>
              </div>
            </div>
          )}
        </div>
      </div>

      <div
        className={cn(
          "pointer-events-none absolute inset-x-0 bottom-3 flex justify-center transition-all duration-200",
          atBottom ? "translate-y-2 opacity-0" : "translate-y-0 opacity-100"
        )}
      >
        <button
          type="button"
          tabIndex={atBottom ? -1 : 0}
          aria-hidden={atBottom}
          onClick={() => scrollToBottom(true)}
          className={cn(
            "inline-flex cursor-pointer items-center gap-1.5 rounded-full bg-white px-3.5 py-1.5 pointer-coarse:min-h-11 text-sm font-medium text-zinc-700 shadow-lg ring-1 ring-zinc-900/10 hover:bg-zinc-50 dark:bg-zinc-800 dark:text-zinc-100 dark:ring-white/10 dark:hover:bg-zinc-700",
            !atBottom && "pointer-events-auto"
          )}
        >
          <ArrowDown className="size-4" aria-hidden="true" />
          Jump to latest
        </button>
      </div>
    </div>
  );
}
