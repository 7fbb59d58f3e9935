/**
 * The inbox: a bell in the sidebar's heading with my unread count, and a
 * sheet of my notifications (mentions of me), newest first, each a link to
 * its message. The count and new notifications arrive live on the room-list
 * socket (hooks/use-room-list.ts); the list itself is read over REST when
 * the sheet opens.
 *
 * Desktop notifications use the browser's Notification API, asked for
 * politely: only when the person presses "Turn on desktop notifications"
 * in the sheet, never on load; and shown only while this tab is hidden
 * (a visible tab has its badge).
 */
import { AtSign, Bell, BellRing, Reply } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { Button, IconButton } from "@/client/components/ui/Button";
import { Dialog } from "@/client/components/ui/Dialog";
import { useRoomList } from "@/client/hooks/use-room-list";
import { api, errorMessage } from "@/client/lib/api";
import { messagePath } from "@/client/lib/routes";
import { relativeTime } from "@/client/lib/time";
import type { Notification, NotificationKind, NotificationList } from "@/shared/notifications";

/** What a notification's sender did, as its line says it. */
const DID: Record<NotificationKind, string> = { mention: "mentioned you", reply: "replied to you" };

type Permission = NotificationPermission | "unsupported";

const permissionNow = (): Permission => ("Notification" in window ? Notification.permission : "unsupported");

/** A new notification while this tab is hidden: the desktop's own, if the person allowed them. */
function useDesktopNotifications(latest: Notification | null) {
  const navigate = useNavigate();
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (!latest || shown.current === latest.id) return;
    shown.current = latest.id;
    if (!document.hidden || permissionNow() !== "granted") return;
    const desktop = new Notification(`${latest.from.name} ${DID[latest.kind]} in ${latest.roomName}`, {
      body: latest.preview,
      tag: latest.id
    });
    desktop.onclick = () => {
      window.focus();
      navigate(messagePath(latest.roomId, latest.messageId));
      desktop.close();
    };
  }, [latest, navigate]);
}

export function NotificationsButton() {
  const { notifications: live, status } = useRoomList();
  const [open, setOpen] = useState(false);
  const [fetched, setFetched] = useState<number | null>(null);
  useDesktopNotifications(live.latest);

  // The count before the socket's first change: asked once connected (and again after a reconnect).
  useEffect(() => {
    if (status !== "open") return;
    let current = true;
    api
      .notifications()
      .then((list) => current && setFetched(list.unread))
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [status]);
  const unread = live.unread ?? fetched ?? 0;
  const label = unread > 0 ? `Notifications, ${unread} unread` : "Notifications";

  return (
    <>
      <span className="relative">
        <IconButton label={label} onClick={() => setOpen(true)}>
          {unread > 0 ? <BellRing /> : <Bell />}
        </IconButton>
        {unread > 0 && (
          <span
            aria-hidden="true"
            data-testid="notifications-badge"
            className="pointer-events-none absolute -top-0.5 -right-0.5 min-w-4 rounded-full bg-danger-fill px-1 text-center tabular-nums text-[10px] leading-4 font-semibold text-on-fill"
          >
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </span>
      <Dialog open={open} onClose={() => setOpen(false)} title="Notifications" variant="sheet">
        <Inbox onNavigate={() => setOpen(false)} liveKey={live.latest?.id ?? ""} />
      </Dialog>
    </>
  );
}

/** The sheet's content: mounted when it opens, so the list is read fresh each time. */
function Inbox({ onNavigate, liveKey }: { onNavigate: () => void; liveKey: string }) {
  const navigate = useNavigate();
  const [list, setList] = useState<NotificationList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [permission, setPermission] = useState<Permission>(permissionNow);

  const load = useCallback(() => {
    api
      .notifications()
      .then(setList)
      .catch((e) => setError(errorMessage(e)));
  }, []);
  // Read again when a new one arrives while the sheet is open.
  // biome-ignore lint/correctness/useExhaustiveDependencies: liveKey is the trigger
  useEffect(load, [load, liveKey]);

  const markAll = () =>
    api
      .markNotificationsRead({ all: true })
      .then(setList)
      .catch((e) => setError(errorMessage(e)));
  const openOne = (n: Notification) => {
    if (!n.read) void api.markNotificationsRead({ ids: [n.id] }).catch(() => {});
    onNavigate();
    navigate(messagePath(n.roomId, n.messageId));
  };
  const askPermission = () => {
    void Notification.requestPermission().then(setPermission);
  };

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" variant="secondary" onClick={() => void markAll()} disabled={!list || list.unread === 0}>
          Mark all read
        </Button>
        {permission === "default" && (
          <Button size="sm" variant="ghost" onClick={askPermission}>
            Turn on desktop notifications
          </Button>
        )}
        {permission === "granted" && (
          <span className="text-xs text-fg-muted">Desktop notifications are on while this tab is hidden.</span>
        )}
        {permission === "denied" && (
          <span className="text-xs text-fg-muted">Desktop notifications are blocked in this browser's settings.</span>
        )}
      </div>
      {error && (
        <p role="alert" className="text-sm text-danger">
          {error}
        </p>
      )}
      {list === null && !error ? (
        <p className="text-sm text-fg-muted">Loading…</p>
      ) : list && list.notifications.length === 0 ? (
        <p className="text-sm text-fg-muted">Nothing yet: when someone writes @ and your name, it shows here.</p>
      ) : (
        <ul aria-label="Notifications" className="space-y-1">
          {list?.notifications.map((n) => (
            <li key={n.id}>
              <a
                href={messagePath(n.roomId, n.messageId)}
                onClick={(event) => {
                  event.preventDefault();
                  openOne(n);
                }}
                className="flex gap-2 rounded-lg px-2 py-2 hover:bg-surface-2"
              >
                {n.kind === "reply" ? (
                  <Reply className="mt-0.5 size-4 shrink-0 text-fg-muted" aria-hidden="true" />
                ) : (
                  <AtSign className="mt-0.5 size-4 shrink-0 text-fg-muted" aria-hidden="true" />
                )}
                <span className="min-w-0 flex-1">
                  <span className="block text-sm">
                    <span className={n.read ? "" : "font-semibold"}>{n.from.name}</span> {DID[n.kind]} in{" "}
                    <span className="font-medium">{n.roomName}</span>
                    {!n.read && <span className="sr-only"> (unread)</span>}
                  </span>
                  <span className="block truncate text-[13px] text-fg-muted">{n.preview}</span>
                  <span className="block text-xs text-fg-muted">{relativeTime(n.createdAt, Date.now())}</span>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
