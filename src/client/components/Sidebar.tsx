import { Keyboard, MessageSquarePlus, Search, X } from "lucide-react";
import { memo, useDeferredValue, useEffect, useMemo, useState } from "react";
import { NavLink, useLocation, useNavigate } from "react-router";
import type { RoomSummary } from "../../shared/protocol";
import { unreadCount } from "../../shared/unread";
import { useAppUI } from "../app-ui";
import { useDisplayName } from "../hooks/use-display-name";
import { useNow } from "../hooks/use-now";
import { useRoomList } from "../hooks/use-room-list";
import { cn } from "../lib/cn";
import { plainPreview } from "../lib/messages";
import { roomPath } from "../lib/routes";
import { fullDateTime, relativeTime } from "../lib/time";
import { MOD } from "./AppDialogs";
import { SignOutButton } from "./AuthGate";
import { CopyLinkButton } from "./CopyLinkButton";
import { MessageSearchResults } from "./MessageSearch";
import { Avatar } from "./ui/Avatar";
import { Button, IconButton } from "./ui/Button";
import { Kbd } from "./ui/Field";

function filterRooms(rooms: RoomSummary[], query: string): RoomSummary[] {
  const q = query.trim().toLowerCase();
  if (!q) return rooms;
  return rooms.filter(
    (r) => r.name.toLowerCase().includes(q) || (r.lastMessagePreview ?? "").toLowerCase().includes(q)
  );
}

/** "99+" past 99: the badge stays one size; its label says the exact count. */
const badgeCount = (n: number) => (n > 99 ? "99+" : String(n));

const RoomRow = memo(function RoomRow({
  room,
  now,
  unread,
  onSelect
}: {
  room: RoomSummary;
  now: number;
  /** Messages I have not read here; null while my read marks are not known yet. */
  unread: number | null;
  onSelect: () => void;
}) {
  return (
    <li className="group/row relative">
      <NavLink
        to={roomPath(room.id)}
        onClick={onSelect}
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
          <span className={cn("min-w-0 flex-1 truncate text-sm text-fg", unread ? "font-semibold" : "font-medium")}>
            {room.name}
          </span>
          <time
            dateTime={new Date(room.lastActiveAt).toISOString()}
            title={fullDateTime(room.lastActiveAt)}
            className="shrink-0 text-[11px] text-fg-muted tabular-nums"
          >
            {relativeTime(room.lastActiveAt, now)}
          </time>
        </div>
        <div className="mt-0.5 flex items-center gap-2">
          <span className="min-w-0 flex-1 truncate text-[13px] text-fg-muted">
            {room.lastMessagePreview ? (
              plainPreview(room.lastMessagePreview)
            ) : (
              <span className="italic">No messages yet</span>
            )}
          </span>
          {!!unread && (
            <span
              className="shrink-0 rounded-full bg-accent-fill px-1.5 text-[11px] leading-4 font-semibold text-on-fill tabular-nums"
              title={`${unread.toLocaleString()} unread of ${room.messageCount.toLocaleString()} messages`}
            >
              <span aria-hidden="true">{badgeCount(unread)}</span>
              <span className="sr-only">{`${unread} unread ${unread === 1 ? "message" : "messages"}`}</span>
            </span>
          )}
        </div>
      </NavLink>
      {/* Beside the link, not inside it: a button may not sit in a link. */}
      <CopyLinkButton
        roomId={room.id}
        roomName={room.name}
        className="absolute top-1 right-1 bg-sidebar opacity-0 group-hover/row:opacity-100 focus-visible:opacity-100 pointer-coarse:opacity-100"
      />
    </li>
  );
});

export function Sidebar({ className }: { className?: string }) {
  const { rooms, status, readMarks } = useRoomList();
  const ui = useAppUI();
  const navigate = useNavigate();
  const location = useLocation();
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const now = useNow();
  const [displayName] = useDisplayName();
  const visible = useMemo(() => (rooms ? filterRooms(rooms, deferredQuery) : null), [rooms, deferredQuery]);
  // Alt+↑/↓ (App.tsx) step through the rooms as listed here.
  useEffect(() => {
    ui.listedRoomIdsRef.current = visible?.map((room) => room.id) ?? null;
  }, [visible, ui.listedRoomIdsRef]);
  const closeDrawer = () => {
    if (!ui.isDesktop) ui.setDrawerOpen(false);
  };

  return (
    <aside className={cn("flex h-full flex-col bg-sidebar", className)} aria-label="Rooms sidebar">
      <div className="flex items-center gap-2 px-3 pt-3 pb-2">
        <div className="flex min-w-0 flex-1 items-center gap-2 pl-1">
          <span className="flex size-7 items-center justify-center rounded-lg bg-brand text-on-fill shadow-sm">
            <svg
              viewBox="0 0 24 24"
              className="size-4"
              fill="none"
              stroke="currentColor"
              strokeWidth="2.2"
              strokeLinecap="round"
              aria-hidden="true"
            >
              <path d="M4 6.5A2.5 2.5 0 0 1 6.5 4h11A2.5 2.5 0 0 1 20 6.5v7a2.5 2.5 0 0 1-2.5 2.5H10l-4.5 4v-4A2.5 2.5 0 0 1 4 13.5z" />
            </svg>
          </span>
          {/* The drawer focuses this heading on open (App.tsx), not the filter: a soft keyboard would cover the list. */}
          <h2
            ref={ui.sidebarHeadingRef}
            id="sidebar-heading"
            tabIndex={-1}
            className="text-[15px] font-semibold tracking-tight focus:outline-none"
          >
            Rooms
          </h2>
          {status !== "open" && (
            <span className="ml-1 inline-flex items-center gap-1 text-xs text-warning" role="status">
              <span className="size-1.5 animate-pulse rounded-full bg-current" />
              {status === "connecting" ? "Connecting" : status === "closed" ? "Offline" : "Reconnecting"}
            </span>
          )}
        </div>
        {!ui.isDesktop && (
          <IconButton label="Close sidebar" onClick={() => ui.setDrawerOpen(false)}>
            <X />
          </IconButton>
        )}
      </div>

      <div className="px-3 pb-2">
        <Button variant="primary" className="w-full justify-start" onClick={ui.openCreateRoom}>
          <MessageSquarePlus className="size-4" aria-hidden="true" />
          New room
          <span aria-hidden="true" className="ml-auto hidden text-xs font-normal text-on-fill md:inline">
            Alt N
          </span>
        </Button>
      </div>

      <div className="px-3 pb-2">
        <div className="relative">
          <Search
            className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-fg-faint"
            aria-hidden="true"
          />
          <label htmlFor="room-filter" className="sr-only">
            Filter rooms and search messages
          </label>
          <input
            id="room-filter"
            ref={ui.filterRef}
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape" && query) {
                e.preventDefault();
                e.stopPropagation();
                setQuery("");
              } else if (e.key === "Enter" && visible?.[0]) {
                // As a click on its link would: a link to the page in view replaces it.
                const path = roomPath(visible[0].id);
                navigate(path, { replace: path === location.pathname });
                closeDrawer();
              }
            }}
            placeholder="Search rooms, messages"
            autoComplete="off"
            className="h-9 w-full rounded-lg border pointer-coarse:h-11 border-edge bg-surface pr-16 pl-8.5 text-sm text-fg placeholder:text-fg-muted hover:border-edge-strong focus:border-accent-line focus:ring-3 focus:ring-accent-line/20 focus:outline-none [&::-webkit-search-cancel-button]:hidden"
          />
          {query ? (
            <IconButton
              label="Clear filter"
              size="sm"
              className="absolute top-1/2 right-1 -translate-y-1/2"
              onClick={() => setQuery("")}
            >
              <X />
            </IconButton>
          ) : (
            <span className="pointer-events-none absolute top-1/2 right-2 hidden -translate-y-1/2 gap-0.5 md:flex">
              <Kbd>{MOD}</Kbd>
              <Kbd>K</Kbd>
            </span>
          )}
        </div>
      </div>

      <nav aria-label="Rooms" className="thin-scrollbar min-h-0 flex-1 overflow-y-auto px-2 pb-2">
        {visible === null ? (
          <ul aria-label="Loading rooms" className="space-y-1 px-1 pt-1">
            {["a", "b", "c", "d", "e"].map((row) => (
              <li key={row} className="animate-pulse space-y-2 rounded-lg px-2 py-2.5">
                <div className="h-3 w-2/3 rounded bg-edge" />
                <div className="h-2.5 w-5/6 rounded bg-surface-3/70" />
              </li>
            ))}
          </ul>
        ) : rooms && rooms.length === 0 ? (
          <div className="px-3 py-8 text-center">
            <p className="text-sm font-medium text-fg-3">No rooms yet</p>
            <p className="mt-1 text-[13px] text-fg-muted">Create your first room to start chatting.</p>
          </div>
        ) : visible.length === 0 ? (
          <div className="px-3 py-8 text-center text-sm text-fg-muted" role="status">
            No rooms match “<span className="font-medium break-words text-fg-3">{deferredQuery.trim()}</span>”
          </div>
        ) : (
          <ul className="space-y-0.5" id="room-list">
            {visible.map((room) => (
              <RoomRow
                key={room.id}
                room={room}
                now={now}
                unread={readMarks ? unreadCount(room.messageCount, readMarks.get(room.id)) : null}
                onSelect={closeDrawer}
              />
            ))}
          </ul>
        )}
        <MessageSearchResults query={deferredQuery} onSelect={closeDrawer} />
      </nav>

      <div className="flex items-center gap-1 border-t border-edge-quiet p-2">
        <button
          type="button"
          onClick={ui.openDisplayName}
          className="flex min-w-0 flex-1 cursor-pointer items-center gap-2.5 rounded-lg px-2 py-1.5 pointer-coarse:min-h-11 text-left hover:bg-surface-3/50"
        >
          <Avatar name={displayName} size="sm" />
          <span className="min-w-0 flex-1">
            <span className="block truncate text-sm font-medium">{displayName}</span>
            <span className="block text-[11px] text-fg-muted">Change display name</span>
          </span>
        </button>
        <IconButton label="Keyboard shortcuts" onClick={ui.openShortcuts}>
          <Keyboard />
        </IconButton>
        <SignOutButton />
      </div>
    </aside>
  );
}
