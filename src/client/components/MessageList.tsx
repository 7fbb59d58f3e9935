/**
 * The conversation: a scroll container that
 * - renders only the rows in and near view (TanStack Virtual), so the page
 *   stays small however far back the reader goes; rows are memoised, so a
 *   streamed token re-renders the streaming row only;
 * - sticks to the bottom while new tokens arrive, until the user scrolls up
 *   (then a "Jump to latest" button appears);
 * - loads older pages when the user nears the top, keeping what they were
 *   looking at in place (the virtualizer's end anchoring);
 * - marks each new calendar day with a divider.
 * Anything meant to sit above the transcript (a "new messages" bar) goes in
 * the outer wrapper, outside the scroll container.
 */

import { defaultRangeExtractor, type Range, useVirtualizer } from "@tanstack/react-virtual";
import { AlertTriangle, ArrowDown, MessagesSquare, RotateCcw } from "lucide-react";
import {
  type ReactNode,
  type Ref,
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState
} from "react";
import { authorId, authorName } from "../../shared/identity";
import type { RoomChat } from "../hooks/use-chat-room";
import type { NewMessagesStart } from "../hooks/use-unread";
import { cn } from "../lib/cn";
import { dayLabel, startsNewDay } from "../lib/day-dividers";
import type { RoomMessage } from "../lib/messages";
import { MessageErrorBoundary } from "./MessageErrorBoundary";
import { MessageItem, type MessageItemProps } from "./MessageItem";
import { NewMessagesDivider } from "./NewMessages";
import { Alert } from "./ui/Alert";
import { AssistantAvatar } from "./ui/Avatar";
import { Button } from "./ui/Button";
import { Spinner, TypingDots } from "./ui/Spinner";

const STICK_THRESHOLD_PX = 80;
const LOAD_OLDER_THRESHOLD_PX = 600;
const GROUP_WINDOW_MS = 5 * 60_000;
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

/** "Today", "Yesterday", a date: a labelled separator, so screen readers name it too. */
function DayDivider({ timestamp }: { timestamp: number }) {
  const label = dayLabel(timestamp, Date.now());
  return (
    // biome-ignore lint/a11y/useSemanticElements: an <hr> cannot hold the visible date
    <div
      role="separator"
      aria-label={label}
      data-day-divider
      className="flex items-center gap-3 px-4 pt-5 pb-1 text-xs font-medium text-fg-subtle sm:px-6"
    >
      <span className="h-px flex-1 bg-edge" />
      <span>{label}</span>
      <span className="h-px flex-1 bg-edge" />
    </div>
  );
}

/**
 * A notice under the transcript, aligned with the messages' text, with an
 * action or a Dismiss button. No role: the room's status region
 * (LiveAnnouncer) already speaks for these.
 */
function RoomNotice({
  tone,
  action,
  onDismiss,
  className,
  children
}: {
  tone: "error" | "warning";
  action?: ReactNode;
  onDismiss?: () => void;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="px-4 pt-2 sm:px-6">
      <Alert
        tone={tone}
        silent
        icon={<AlertTriangle className="size-4 shrink-0" aria-hidden="true" />}
        action={
          onDismiss ? (
            <Button size="sm" variant="ghost" onClick={onDismiss}>
              Dismiss
            </Button>
          ) : (
            action
          )
        }
        className={cn("ml-11 items-center gap-3", className)}
      >
        {children}
      </Alert>
    </div>
  );
}

/**
 * A message and what depends on its neighbour: grouping, and a day divider
 * when it opens a new day. `previous` is undefined for the first message we
 * hold; that one opens a day only when it is the room's first.
 */
function MessageRow({
  previous,
  roomStart,
  newFrom,
  ...props
}: Omit<MessageItemProps, "grouped"> & {
  previous: RoomMessage | undefined;
  roomStart: boolean;
  /** Puts the "N new messages" divider before this message. */
  newFrom?: number;
}) {
  const createdAt = props.message.metadata?.createdAt;
  const newDay =
    props.message.role !== "system" &&
    createdAt !== undefined &&
    (previous !== undefined || roomStart) &&
    startsNewDay(previous?.metadata?.createdAt, createdAt);
  return (
    <>
      {newDay && <DayDivider timestamp={createdAt} />}
      {newFrom !== undefined && <NewMessagesDivider count={newFrom} />}
      <MessageItem {...props} grouped={!newDay && newFrom === undefined && isGrouped(previous, props.message)} />
    </>
  );
}

/** A callback with a stable identity that always runs the latest closure (a new onFork must not re-render every row). */
function useLatest<A extends unknown[], R>(fn: ((...args: A) => R) | undefined) {
  const ref = useRef(fn);
  useLayoutEffect(() => {
    ref.current = fn;
  });
  const stable = useCallback((...args: A) => ref.current?.(...args) as R, []);
  return fn ? stable : undefined;
}

/** What the room asks of its transcript (the "N new messages" bar): no DOM queries from outside. */
export interface MessageListHandle {
  /** Scrolls a loaded message (with the dividers before it) to the top of the view; false when it is not loaded. */
  showMessage(messageId: string): boolean;
  /** Focuses the transcript itself, without scrolling. */
  focus(): void;
}

export interface MessageListProps {
  ref?: Ref<MessageListHandle>;
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

export function MessageList({
  ref,
  chat,
  roomName,
  selfId,
  connected,
  stickSignal,
  onFork,
  newMessages
}: MessageListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const stickRef = useRef(true);
  const [atBottom, setAtBottom] = useState(true);
  const { messages, loadOlder, reachedStart, loadingOlder } = chat;
  const fork = useLatest(onFork);

  // ── Virtual rows ──
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  /** The message holding keyboard focus stays rendered when scrolled away, so focus never falls to the page. */
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
    directDomUpdates: true
  });

  const virtualItems = virtualizer.getVirtualItems();

  const scrollToBottom = useCallback((smooth = false) => {
    const el = scrollRef.current;
    if (!el) return;
    stickRef.current = true;
    setAtBottom(true);
    // Far away, the rows in between are only estimated: a smooth scroll would
    // aim at a bottom that moves as they are measured and stop short. Jump,
    // and the resize observer keeps us at the bottom while they settle.
    const far = el.scrollHeight - el.scrollTop - el.clientHeight > el.clientHeight * 3;
    el.scrollTo({ top: el.scrollHeight, behavior: smooth && !far ? "smooth" : "auto" });
  }, []);

  // Follow the content while stuck to the bottom (streaming, new messages,
  // rows measured, late-loading Markdown or highlighting changing heights).
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

  useImperativeHandle(
    ref,
    () => ({
      showMessage(messageId) {
        const index = messagesRef.current.findIndex((m) => m.id === messageId);
        if (index < 0) return false;
        stickRef.current = false;
        // The row holds the dividers before its message, so its start shows them.
        virtualizer.scrollToIndex(index, { align: "start" });
        return true;
      },
      focus() {
        scrollRef.current?.focus({ preventScroll: true });
      }
    }),
    [virtualizer]
  );

  const maybeLoadOlder = useCallback(() => {
    const el = scrollRef.current;
    if (!el || reachedStart || loadingOlder) return;
    if (el.scrollTop < LOAD_OLDER_THRESHOLD_PX && el.scrollHeight > el.clientHeight) void loadOlder();
  }, [reachedStart, loadingOlder, loadOlder]);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    const stuck = distance < STICK_THRESHOLD_PX;
    stickRef.current = stuck;
    setAtBottom(stuck);
    maybeLoadOlder();
  }, [maybeLoadOlder]);

  // Reaching the start removes "Load earlier messages": if it had focus,
  // hand focus to the log rather than let it fall to the page.
  const showsLoadOlder = !reachedStart && messages.length > 0;
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
  }, []);
  useLayoutEffect(() => {
    if (!showsLoadOlder && loadOlderFocused.current) {
      loadOlderFocused.current = false;
      scrollRef.current?.focus({ preventScroll: true });
    }
  }, [showsLoadOlder]);

  // Still near the top after a page (short messages)? Keep loading.
  useEffect(() => {
    if (!loadingOlder) maybeLoadOlder();
  }, [loadingOlder, maybeLoadOlder]);

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
        // The virtualizer keeps the reader's place itself; the browser's own
        // scroll anchoring would correct the same shift a second time.
        className="thin-scrollbar h-full overflow-y-auto overscroll-contain [overflow-anchor:none]"
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
          {messages.length > 0 && (
            <div className="flex h-16 shrink-0 items-center justify-center px-4 text-sm text-fg-muted sm:px-6">
              {showsLoadOlder ? (
                chat.olderError ? (
                  <span className="flex items-center gap-2">
                    <span className="text-danger">{chat.olderError}</span>
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
                    onClick={() => !loadingOlder && void loadOlder()}
                  >
                    {loadingOlder ? (
                      <>
                        <Spinner /> Loading earlier messages…
                      </>
                    ) : (
                      "Load earlier messages"
                    )}
                  </Button>
                )
              ) : (
                <div className="flex w-full items-center gap-3">
                  <span className="h-px flex-1 bg-edge" />
                  <span>
                    This is the start of <span className="font-medium text-fg-3">{roomName}</span>
                  </span>
                  <span className="h-px flex-1 bg-edge" />
                </div>
              )}
            </div>
          )}

          {messages.length === 0 && !waitingForAnswer && (
            <div className="m-auto flex max-w-sm flex-col items-center px-6 py-16 text-center">
              <div className="mb-4 flex size-12 items-center justify-center rounded-2xl bg-accent-bg text-accent-fg">
                <MessagesSquare className="size-6" aria-hidden="true" />
              </div>
              <h2 className="text-base font-semibold text-fg">No messages yet</h2>
              <p className="mt-1 text-sm text-fg-muted">
                Write the first message below. Everyone in this room sees the answer as it streams in.
              </p>
            </div>
          )}

          {messages.length > 0 && (
            <div
              ref={virtualizer.containerRef}
              className="relative w-full shrink-0"
              data-loaded-messages={messages.length}
              data-last-message-id={messages.at(-1)?.id}
            >
              {virtualItems.map((item) => {
                const message = messages[item.index];
                if (!message) return null;
                const isLast = item.index === messages.length - 1;
                return (
                  <div
                    key={item.key}
                    ref={virtualizer.measureElement}
                    data-index={item.index}
                    data-row-id={message.id}
                    className="absolute top-0 left-0 w-full"
                  >
                    <MessageErrorBoundary messageId={message.id} resetKey={message}>
                      <MessageRow
                        message={message}
                        previous={messages[item.index - 1]}
                        roomStart={reachedStart && item.index === 0}
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
                        onFork={fork}
                      />
                    </MessageErrorBoundary>
                  </div>
                );
              })}
            </div>
          )}

          {waitingForAnswer && (
            <div role="status" className="flex gap-3 px-4 pt-3 pb-2 sm:px-6" aria-label="Assistant is thinking">
              <AssistantAvatar />
              <div className="flex h-8 items-center gap-2 text-sm text-fg-muted">
                <TypingDots className="text-fg-faint" />
                <span>{chat.isRecovering ? "Recovering the answer…" : "Thinking…"}</span>
              </div>
            </div>
          )}

          {showStreamError && (
            <RoomNotice
              tone="error"
              className="flex-wrap"
              action={
                connected && (
                  <Button size="sm" onClick={chat.retry}>
                    <RotateCcw className="size-3.5" aria-hidden="true" />
                    Retry
                  </Button>
                )
              }
            >
              {chat.error?.message || "The answer failed."}
            </RoomNotice>
          )}

          {chat.serverError && chat.serverError !== chat.error?.message && !chat.actionError && (
            <RoomNotice tone="warning" onDismiss={chat.clearServerError}>
              {chat.serverError}
            </RoomNotice>
          )}

          {chat.actionError && (
            <RoomNotice tone="error" onDismiss={chat.dismissActionError}>
              {chat.actionError}
            </RoomNotice>
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
            "inline-flex cursor-pointer items-center gap-1.5 rounded-full bg-surface-raised px-3.5 py-1.5 pointer-coarse:min-h-11 text-sm font-medium text-fg-control shadow-lg ring-1 ring-hairline hover:bg-surface-raised-hover",
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
