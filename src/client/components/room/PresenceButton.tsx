/**
 * Who is in the room: up to three avatars in the header, and a popover
 * listing everyone (you first), with who is typing.
 */
import { Users } from "lucide-react";
import { useEffect, useId, useMemo, useRef } from "react";
import { Avatar } from "@/client/components/ui/Avatar";
import type { PresenceUser } from "@/shared/protocol";

export function PresenceButton({ users, selfId }: { users: PresenceUser[]; selfId: string }) {
  const popoverId = useId();
  // The server sends one entry per identity.
  const unique = useMemo(
    () =>
      users
        .map((u) => ({ ...u, self: u.id === selfId }))
        .sort((a, b) => Number(b.self) - Number(a.self) || a.name.localeCompare(b.name)),
    [users, selfId]
  );
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popoverRef = useRef<HTMLDivElement>(null);
  // Place the popover under its button (it lives in the top layer).
  useEffect(() => {
    const popover = popoverRef.current;
    if (!popover) return;
    const onToggle = (event: Event) => {
      if ((event as ToggleEvent).newState !== "open" || !buttonRef.current) return;
      const rect = buttonRef.current.getBoundingClientRect();
      popover.style.top = `${rect.bottom + 6}px`;
      popover.style.left = `${Math.max(8, Math.min(rect.right - 256, window.innerWidth - 264))}px`;
    };
    popover.addEventListener("beforetoggle", onToggle);
    return () => popover.removeEventListener("beforetoggle", onToggle);
  });
  if (unique.length === 0) return null;
  const shown = unique.slice(0, 3);
  const label = `${unique.length} ${unique.length === 1 ? "person" : "people"} here`;
  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        popoverTarget={popoverId}
        aria-label={`${label}: ${unique.map((u) => u.name).join(", ")}`}
        title={label}
        className="flex h-9 cursor-pointer items-center gap-1.5 rounded-lg px-1.5 pointer-coarse:h-11 pointer-coarse:min-w-11 hover:bg-surface-2"
      >
        <span className="flex -space-x-1">
          {shown.map((u) => (
            <Avatar key={u.id} name={u.name} seed={u.id} size="sm" className="ring-2 ring-background" />
          ))}
        </span>
        {unique.length > shown.length && (
          <span className="text-xs font-medium text-fg-muted">+{unique.length - shown.length}</span>
        )}
      </button>
      <div
        ref={popoverRef}
        id={popoverId}
        popover="auto"
        className="fixed inset-auto m-0 w-64 rounded-xl border border-edge bg-surface p-2 text-fg shadow-xl"
      >
        <div className="flex items-center gap-2 px-2 pt-1 pb-2 text-xs font-medium tracking-wide text-fg-muted uppercase">
          <Users className="size-3.5" aria-hidden="true" /> In this room
        </div>
        <ul aria-label="People in this room">
          {unique.map((u) => (
            <li key={u.name} className="flex items-center gap-2 rounded-lg px-2 py-1.5 text-sm">
              <Avatar name={u.name} seed={u.id} size="sm" />
              <span className="min-w-0 flex-1 truncate">
                {u.name}
                {u.self && <span className="text-fg-muted"> (you)</span>}
              </span>
              {u.typing && <span className="text-xs text-fg-muted">typing…</span>}
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}
