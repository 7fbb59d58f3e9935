/**
 * The rows the virtualizer has in and near view, each measured once
 * rendered and absolutely placed; a row that throws shows its own error
 * instead of taking the transcript down.
 */
import type { ReactVirtualizer } from "@tanstack/react-virtual";
import { MessageErrorBoundary } from "@/client/components/MessageErrorBoundary";
import type { RoomChat } from "@/client/hooks/use-chat-room";
import type { NewMessagesStart } from "@/client/hooks/use-unread";
import { authorId } from "@/shared/identity";
import { MessageRow } from "./MessageRow";

export function TranscriptRows({
  virtualizer,
  chat,
  selfId,
  connected,
  newMessages,
  onFork,
  describeEdit,
  tabStopId
}: {
  virtualizer: ReactVirtualizer<HTMLElement, Element>;
  chat: RoomChat;
  selfId: string;
  connected: boolean;
  newMessages?: NewMessagesStart | null;
  onFork?: (messageId: string) => void;
  describeEdit?: (messageId: string) => string;
  /** The message holding the transcript's one tab stop; the last rendered one when it is not in the page. */
  tabStopId: string | null;
}) {
  const { messages, busy, reachedStart } = chat;
  const items = virtualizer.getVirtualItems();
  const rendered = items.some((item) => messages[item.index]?.id === tabStopId);
  const stop = rendered ? tabStopId : messages[items.at(-1)?.index ?? -1]?.id;
  return (
    <div
      ref={virtualizer.containerRef}
      className="relative w-full shrink-0"
      data-loaded-messages={messages.length}
      data-last-message-id={messages.at(-1)?.id}
    >
      {items.map((item) => {
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
                streaming={isLast && message.role === "assistant" && (chat.isStreaming || chat.status === "submitted")}
                canRegenerate={isLast && message.role === "assistant" && !busy && connected}
                canEdit={message.role === "user" && authorId(message.metadata?.author) === selfId && !busy && connected}
                onRegenerate={chat.regenerate}
                onEdit={chat.editAndResend}
                onFork={onFork}
                describeEdit={describeEdit}
                tabStop={message.id === stop}
              />
            </MessageErrorBoundary>
          </div>
        );
      })}
    </div>
  );
}
