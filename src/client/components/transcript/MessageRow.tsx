/**
 * One row of the transcript: a message and what depends on its neighbour,
 * grouping under the previous message's header and a day divider when it
 * opens a new calendar day.
 */

import { MessageItem, type MessageItemProps } from "@/client/components/MessageItem";
import { NewMessagesDivider } from "@/client/components/NewMessages";
import { dayLabel, startsNewDay } from "@/client/lib/day-dividers";
import type { RoomMessage } from "@/client/lib/messages";
import { authorId, authorName } from "@/shared/identity";

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
 * `previous` is undefined for the first message we hold; that one opens a
 * day only when it is the room's first.
 */
export function MessageRow({
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
