/**
 * One row of the transcript: a message and what depends on its neighbour,
 * grouping under the previous message's header and a day divider when it
 * opens a new calendar day.
 */

import { MessageItem, type MessageItemProps } from "@/client/components/MessageItem";
import { NewMessagesDivider } from "@/client/components/NewMessages";
import { dayLabel, startsNewDay } from "@/client/lib/day-dividers";
import { isGrouped } from "@/client/lib/message-grouping";
import type { RoomMessage } from "@/client/lib/messages";

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
