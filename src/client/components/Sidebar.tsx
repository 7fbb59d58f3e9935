/**
 * The sidebar: new room, the filter (rooms by name and preview, messages by
 * full-text search), the live room list with unread counts, and who I am.
 */
import { MessageSquarePlus } from "lucide-react";
import { type KeyboardEvent, useCallback, useDeferredValue, useEffect, useMemo, useState } from "react";
import { useLocation, useMatch, useNavigate } from "react-router";
import { useAppUI } from "@/client/app-ui";
import { useNow } from "@/client/hooks/use-now";
import { useRoomList } from "@/client/hooks/use-room-list";
import { cn } from "@/client/lib/cn";
import { ROOM_ROUTE, roomPath } from "@/client/lib/routes";
import type { RoomSummary } from "@/shared/protocol";
import { unreadCount } from "@/shared/unread";
import { MessageSearchResults } from "./MessageSearch";
import { RoomRow } from "./sidebar/RoomRow";
import { RoomFilter, SidebarFooter, SidebarHeading } from "./sidebar/SidebarParts";
import { Button } from "./ui/Button";

/** ↑/↓, Home and End move focus between the listed rooms' links. */
function moveBetweenRooms(event: KeyboardEvent<HTMLUListElement>) {
  if (!["ArrowUp", "ArrowDown", "Home", "End"].includes(event.key) || event.altKey || event.ctrlKey || event.metaKey) {
    return;
  }
  const links = [...event.currentTarget.querySelectorAll<HTMLAnchorElement>("a[data-room-id]")];
  const at = links.indexOf(event.target as HTMLAnchorElement);
  if (at < 0) return;
  event.preventDefault();
  const next =
    event.key === "Home"
      ? 0
      : event.key === "End"
        ? links.length - 1
        : Math.min(links.length - 1, Math.max(0, at + (event.key === "ArrowDown" ? 1 : -1)));
  links[next].focus();
}

function filterRooms(rooms: RoomSummary[], query: string): RoomSummary[] {
  const q = query.trim().toLowerCase();
  if (!q) return rooms;
  return rooms.filter(
    (r) => r.name.toLowerCase().includes(q) || (r.lastMessagePreview ?? "").toLowerCase().includes(q)
  );
}

export function Sidebar({ className }: { className?: string }) {
  const { rooms, status, readMarks } = useRoomList();
  const ui = useAppUI();
  const navigate = useNavigate();
  const location = useLocation();
  const openRoomId = useMatch(ROOM_ROUTE)?.params.roomId;
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const now = useNow();
  const visible = useMemo(() => (rooms ? filterRooms(rooms, deferredQuery) : null), [rooms, deferredQuery]);
  // Alt+↑/↓ (App.tsx) step through the rooms as listed here.
  useEffect(() => {
    ui.listedRoomIdsRef.current = visible?.map((room) => room.id) ?? null;
  }, [visible, ui.listedRoomIdsRef]);
  // Stable, so a room row (memo) re-renders only when its own props change.
  const { isDesktop, setDrawerOpen } = ui;
  const closeDrawer = useCallback(() => {
    if (!isDesktop) setDrawerOpen(false);
  }, [isDesktop, setDrawerOpen]);

  return (
    <aside className={cn("flex h-full flex-col bg-sidebar", className)} aria-label="Rooms sidebar">
      <SidebarHeading status={status} />
      <div className="px-3 pb-2">
        <Button variant="primary" className="w-full justify-start" onClick={ui.openCreateRoom}>
          <MessageSquarePlus className="size-4" aria-hidden="true" />
          New room
          <span aria-hidden="true" className="ml-auto hidden text-xs font-normal text-on-fill md:inline">
            Alt N
          </span>
        </Button>
      </div>
      <RoomFilter
        query={query}
        setQuery={setQuery}
        onEnter={() => {
          if (!visible?.[0]) return;
          // As a click on its link would: a link to the page in view replaces it.
          const path = roomPath(visible[0].id);
          navigate(path, { replace: path === location.pathname });
          closeDrawer();
        }}
      />
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
          <ul className="space-y-0.5" id="room-list" onKeyDown={moveBetweenRooms}>
            {visible.map((room) => (
              <RoomRow
                key={room.id}
                room={room}
                now={now}
                unread={readMarks ? unreadCount(room.messageCount, readMarks.get(room.id)) : null}
                reading={room.id === openRoomId}
                onSelect={closeDrawer}
                tabStop={room.id === (visible.some((r) => r.id === openRoomId) ? openRoomId : visible[0].id)}
              />
            ))}
          </ul>
        )}
        <MessageSearchResults query={deferredQuery} onSelect={closeDrawer} />
      </nav>

      <SidebarFooter />
    </aside>
  );
}
