/**
 * The sidebar's fixed parts: its heading with the room list's connection,
 * the filter box (Ctrl+K, /), and the footer with the display name,
 * people and access, shortcuts and sign out.
 */
import { EllipsisVertical, Keyboard, LogOut, Search, Users, X } from "lucide-react";
import type { KeyboardEvent } from "react";
import { useNavigate } from "react-router";
import { useAppUI } from "@/client/app-ui";
import { MOD } from "@/client/components/AppDialogs";
import { useAuth } from "@/client/components/AuthGate";
import { NotificationsButton } from "@/client/components/notifications/NotificationsButton";
import { ActionMenu, ActionMenuItem } from "@/client/components/ui/ActionMenu";
import { Avatar } from "@/client/components/ui/Avatar";
import { IconButton } from "@/client/components/ui/Button";
import { Kbd } from "@/client/components/ui/Field";
import { useDisplayName } from "@/client/hooks/use-display-name";
import type { ConnectionStatus } from "@/client/hooks/use-room-list";
import { PEOPLE_ROUTE } from "@/client/lib/routes";

export function SidebarHeading({ status }: { status: ConnectionStatus }) {
  const ui = useAppUI();
  return (
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
        {/* The drawer focuses this title on open (App.tsx), not the filter: a soft keyboard would cover the list.
            Not a heading: the page's own h1 (the room's name) comes first in the outline. */}
        <p
          ref={ui.sidebarHeadingRef}
          id="sidebar-heading"
          tabIndex={-1}
          className="text-[15px] font-semibold tracking-tight focus:outline-none"
        >
          Rooms
        </p>
        {status !== "open" && (
          <span className="ml-1 inline-flex items-center gap-1 text-xs text-warning" role="status">
            <span className="size-1.5 animate-pulse rounded-full bg-current" />
            {status === "connecting" ? "Connecting" : status === "closed" ? "Offline" : "Reconnecting"}
          </span>
        )}
      </div>
      <NotificationsButton />
      {!ui.isDesktop && (
        <IconButton label="Close sidebar" onClick={() => ui.setDrawerOpen(false)}>
          <X />
        </IconButton>
      )}
    </div>
  );
}

export function RoomFilter({
  query,
  setQuery,
  onEnter
}: {
  query: string;
  setQuery: (query: string) => void;
  /** Enter in the box: open the first room listed. */
  onEnter: () => void;
}) {
  const ui = useAppUI();
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Escape" && query) {
      e.preventDefault();
      e.stopPropagation();
      setQuery("");
    } else if (e.key === "Enter") onEnter();
  };
  return (
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
          onKeyDown={onKeyDown}
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
  );
}

export function SidebarFooter() {
  const ui = useAppUI();
  const [displayName] = useDisplayName();
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
  return (
    <div className="flex items-center gap-1 border-t border-edge-quiet p-2">
      <button
        type="button"
        onClick={ui.openDisplayName}
        className="flex min-w-0 flex-1 cursor-pointer items-center gap-2.5 rounded-lg px-2 py-1.5 pointer-coarse:min-h-11 text-left hover:bg-surface-3/50"
      >
        <Avatar name={displayName} seed={user.id} size="sm" />
        <span className="min-w-0 flex-1">
          <span className="block truncate text-sm font-medium">{displayName}</span>
          <span className="block text-[11px] text-fg-muted">Change display name</span>
        </span>
      </button>
      {/* One tab stop for the rarely used three, so the keyboard reaches the room sooner. */}
      <ActionMenu label="Account and help" icon={<EllipsisVertical />} placement="footer">
        {(close) => (
          <>
            <ActionMenuItem
              icon={<Users />}
              onSelect={() => {
                close();
                navigate(PEOPLE_ROUTE);
                if (!ui.isDesktop) ui.setDrawerOpen(false);
              }}
            >
              People and access
            </ActionMenuItem>
            <ActionMenuItem
              icon={<Keyboard />}
              onSelect={() => {
                close();
                ui.openShortcuts();
              }}
            >
              Keyboard shortcuts
            </ActionMenuItem>
            {user.kind !== "api" && (
              <ActionMenuItem
                icon={<LogOut />}
                onSelect={() => {
                  close();
                  signOut();
                }}
              >
                Sign out
              </ActionMenuItem>
            )}
          </>
        )}
      </ActionMenu>
    </div>
  );
}
