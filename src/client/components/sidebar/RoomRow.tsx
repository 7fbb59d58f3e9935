/** One room in the sidebar: name (with a lock when private), last activity, a preview of its last message, my unread count, and Copy link. */
import { Lock } from "lucide-react";
import { memo } from "react";
import { NavLink } from "react-router";
import { CopyLinkButton } from "@/client/components/CopyLinkButton";
import { cn } from "@/client/lib/cn";
import { plainPreview } from "@/client/lib/messages";
import { prefetchCancel, prefetchSoon } from "@/client/lib/room-pages";
import { roomPath } from "@/client/lib/routes";
import { countOf, fullDateTime, relativeTime } from "@/client/lib/time";
import type { RoomSummary } from "@/shared/protocol";

/** "99+" past 99: the badge stays one size; its label says the exact count. */
const badgeCount = (n: number) => (n > 99 ? "99+" : String(n));

export const RoomRow = memo(function RoomRow({
  room,
  now,
  unread,
  onSelect,
  tabStop,
  reading
}: {
  room: RoomSummary;
  now: number;
  /** Messages I have not read here; null while my read marks are not known yet. */
  unread: number | null;
  onSelect: () => void;
  /** The list's one tab stop (↑/↓ move between rooms: Sidebar.tsx). */
  tabStop: boolean;
  /**
   * The room open now: no badge, its new messages are in front of the reader
   * (`data-unread` still says what the server counts, until the read reaches it).
   */
  reading: boolean;
}) {
  const badge = reading ? 0 : unread;
  const when = relativeTime(room.lastActiveAt, now);
  return (
    <li className="group/row relative">
      <NavLink
        to={roomPath(room.id)}
        onClick={() => {
          // Opening it now: the focus that came with the click asks for no prefetch.
          prefetchCancel();
          onSelect();
        }}
        // A room about to be opened starts loading (lib/room-pages.ts); not the one open already.
        onPointerEnter={reading ? undefined : () => prefetchSoon(room.id)}
        onFocus={reading ? undefined : () => prefetchSoon(room.id)}
        onPointerLeave={() => prefetchCancel(room.id)}
        onBlur={() => prefetchCancel(room.id)}
        tabIndex={tabStop ? 0 : -1}
        data-room-id={room.id}
        data-unread={unread ?? undefined}
        className={({ isActive }) =>
          cn(
            "group block rounded-lg px-3 py-2 transition-colors pointer-coarse:pr-12",
            isActive ? "bg-surface-raised shadow-xs ring-1 ring-hairline/50" : "hover:bg-surface-3/50"
          )
        }
      >
        <div className="flex items-baseline gap-2">
          <span className={cn("min-w-0 flex-1 truncate text-sm text-fg", badge ? "font-semibold" : "font-medium")}>
            {room.visibility === "private" && (
              <span title="Private room" data-private="">
                <Lock className="mr-1 inline size-3 align-[-1px] text-fg-muted" aria-hidden="true" />
                <span className="sr-only">Private: </span>
              </span>
            )}
            {room.name}
          </span>{" "}
          <time
            dateTime={new Date(room.lastActiveAt).toISOString()}
            title={fullDateTime(room.lastActiveAt)}
            className="shrink-0 text-[11px] text-fg-muted tabular-nums"
          >
            {when}
          </time>{" "}
        </div>
        <div className="mt-0.5 flex items-center gap-2">
          <span className="min-w-0 flex-1 truncate text-[13px] text-fg-muted">
            {room.lastMessagePreview ? (
              plainPreview(room.lastMessagePreview)
            ) : (
              <span className="italic">No messages yet</span>
            )}
          </span>
          {!!badge && (
            <span
              className="shrink-0 rounded-full bg-accent-fill px-1.5 text-[11px] leading-4 font-semibold text-on-fill tabular-nums"
              title={`${badge.toLocaleString()} unread of ${countOf(room.messageCount, "message")}`}
            >
              <span aria-hidden="true">{badgeCount(badge)}</span>
              <span className="sr-only">{`${badge} unread ${badge === 1 ? "message" : "messages"}`}</span>
            </span>
          )}
        </div>
      </NavLink>
      {/* Beside the link, not inside it: a button may not sit in a link. */}
      {/* Mouse and touch only: the keyboard copies the open room's link from its header. */}
      <CopyLinkButton
        tabIndex={-1}
        roomId={room.id}
        roomName={room.name}
        className="absolute top-1 right-1 bg-sidebar opacity-0 group-hover/row:opacity-100 focus-visible:opacity-100 pointer-coarse:opacity-100"
      />
    </li>
  );
});
