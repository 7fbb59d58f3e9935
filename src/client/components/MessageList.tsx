/**
 * The conversation: a scroll container that
 * - renders only the rows in and near view (hooks/use-transcript-rows.ts);
 *   rows are memoised, so a streamed token re-renders the streaming row only;
 * - sticks to the bottom while new tokens arrive, until the user scrolls up
 *   (then a "Jump to latest" button appears; hooks/use-stick-to-bottom.ts);
 * - loads older pages when the user nears the top, keeping what they were
 *   looking at in place (the virtualizer's end anchoring);
 * - marks each new calendar day with a divider (transcript/MessageRow.tsx).
 * Anything meant to sit above the transcript (a "new messages" bar) goes in
 * the outer wrapper, outside the scroll container.
 */
import { type Ref, useCallback, useImperativeHandle, useLayoutEffect, useRef } from "react";
import type { RoomChat } from "@/client/hooks/use-chat-room";
import { useMessageFocus } from "@/client/hooks/use-message-focus";
import { useMovedMessages } from "@/client/hooks/use-moved-messages";
import { useStickToBottom } from "@/client/hooks/use-stick-to-bottom";
import { useLoadOlderNearTop, useTranscriptRows } from "@/client/hooks/use-transcript-rows";
import type { NewMessagesStart } from "@/client/hooks/use-unread";
import { flashMessage } from "@/client/lib/flash-message";
import { editConsequence } from "@/client/lib/version-moves";
import { EmptyTranscript, JumpToLatest, TranscriptStart } from "./transcript/TranscriptEdges";
import { isWaitingForAnswer, TranscriptNotices } from "./transcript/TranscriptNotices";
import { TranscriptRows } from "./transcript/TranscriptRows";
import type { MessageListHandle } from "./transcript/transcript-handle";

/** A callback with a stable identity that always runs the latest closure (a new onFork must not re-render every row). */
function useLatest<A extends unknown[], R>(fn: ((...args: A) => R) | undefined) {
  const ref = useRef(fn);
  useLayoutEffect(() => {
    ref.current = fn;
  });
  const stable = useCallback((...args: A) => ref.current?.(...args) as R, []);
  return fn ? stable : undefined;
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
  const { messages, loadOlder, reachedStart, loadingOlder, busy } = chat;
  const fork = useLatest(onFork);
  const showsLoadOlder = !reachedStart && messages.length > 0;
  const { virtualizer, indexOf } = useTranscriptRows(scrollRef, messages, showsLoadOlder);
  const follow = useStickToBottom(scrollRef, contentRef, stickSignal, busy);
  const moved = useMovedMessages(messages, selfId);
  const focus = useMessageFocus({
    containerRef: contentRef,
    messages,
    reachedStart,
    loadOlder,
    scrollToIndex: (index) => virtualizer.scrollToIndex(index, { align: "auto" })
  });
  const describeEdit = useLatest((messageId: string) => editConsequence(messages, messageId, selfId));

  useImperativeHandle(
    ref,
    () => ({
      showMessage(messageId, options) {
        const index = indexOf(messageId);
        if (index < 0) return false;
        follow.release();
        virtualizer.scrollToIndex(index, { align: "start" }); // a row's start shows the dividers before its message
        if (options?.highlight) flashMessage(contentRef.current, messageId);
        return true;
      },
      focus() {
        scrollRef.current?.focus({ preventScroll: true });
      }
    }),
    [virtualizer, indexOf, follow.release]
  );

  const maybeLoadOlder = useLoadOlderNearTop(scrollRef, { reachedStart, loadingOlder, loadOlder });

  return (
    <div className="relative min-h-0 flex-1">
      <div
        ref={scrollRef}
        onScroll={() => {
          follow.onScroll();
          maybeLoadOlder();
        }}
        // The virtualizer keeps the reader's place itself; the browser's own
        // scroll anchoring would correct the same shift a second time.
        className="thin-scrollbar h-full overflow-y-auto overscroll-contain [overflow-anchor:none]"
        role="log"
        // Not live: a streamed answer would be read as dozens of insertions.
        // The room's status region (LiveAnnouncer) speaks for it.
        aria-live="off"
        aria-label={`Messages in ${roomName}`}
        aria-busy={busy}
        // Not a tab stop itself: one message is (hooks/use-message-focus.ts), which
        // also lets the keyboard scroll the log. Focusable for "N new messages".
        tabIndex={-1}
        onKeyDown={focus.onKeyDown}
        onFocus={focus.onFocus}
      >
        <div ref={contentRef} className="mx-auto flex min-h-full w-full max-w-3xl flex-col pt-4 pb-6">
          {messages.length > 0 && (
            <TranscriptStart
              roomName={roomName}
              reachedStart={reachedStart}
              loadingOlder={loadingOlder}
              olderError={chat.olderError}
              onLoadOlder={() => void loadOlder()}
            />
          )}
          {messages.length === 0 && !isWaitingForAnswer(chat) && <EmptyTranscript />}
          {messages.length > 0 && (
            <TranscriptRows
              virtualizer={virtualizer}
              chat={chat}
              selfId={selfId}
              connected={connected}
              newMessages={newMessages}
              onFork={fork}
              describeEdit={describeEdit}
              tabStopId={focus.tabStopId}
            />
          )}
          <TranscriptNotices chat={chat} connected={connected} moved={moved.moved} onDismissMoved={moved.dismiss} />
        </div>
      </div>
      <JumpToLatest hidden={follow.atBottom} onJump={() => follow.scrollToBottom(true)} />
    </div>
  );
}
