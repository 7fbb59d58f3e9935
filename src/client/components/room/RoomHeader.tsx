/**
 * The room's header: its name, connection, model and token count, who is
 * here, and the room's actions (on a phone, the secondary ones behind "…").
 */
import { Ellipsis, Pencil, Search, Settings2, Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import { useAppUI } from "@/client/app-ui";
import { CopyLinkButton } from "@/client/components/CopyLinkButton";
import { MemoryButton } from "@/client/components/memory/MemoryPanel";
import { RoomInfoButton } from "@/client/components/RoomInfo";
import { OpenSidebarButton } from "@/client/components/RoomStates";
import { ShareButton } from "@/client/components/ShareDialog";
import { ExportMenu } from "@/client/components/Transfer";
import { IconButton } from "@/client/components/ui/Button";
import { HeaderPopover } from "@/client/components/ui/HeaderPopover";
import type { ConnectionStatus } from "@/client/hooks/use-room-list";
import type { RoomSocket } from "@/client/hooks/use-room-socket";
import { cn } from "@/client/lib/cn";
import { formatCount } from "@/client/lib/time";
import type { RoomState } from "@/shared/protocol";
import { PresenceButton } from "./PresenceButton";

function ConnectionBadge({ status }: { status: ConnectionStatus }) {
  const label = { open: "Live", connecting: "Connecting…", reconnecting: "Reconnecting…", closed: "Disconnected" }[
    status
  ];
  return (
    <span
      role="status"
      aria-label={`Connection: ${label}`}
      className={cn(
        "inline-flex shrink-0 items-center gap-1.5 text-xs font-medium",
        status === "open" && "text-success",
        (status === "connecting" || status === "reconnecting") && "text-warning",
        status === "closed" && "text-danger"
      )}
    >
      <span
        className={cn("size-1.5 rounded-full bg-current", status !== "open" && status !== "closed" && "animate-pulse")}
      />
      {label}
    </span>
  );
}

/**
 * On a phone the header has room for the title and two or three buttons, not
 * seven: the room's secondary actions move behind one "More room actions"
 * button, into a popover row (the same buttons, so their own menus and
 * dialogs work unchanged; a modal dialog closes the popover as it opens).
 */
function PhoneOverflow({ phone, children }: { phone: boolean; children: ReactNode }) {
  if (!phone) return <>{children}</>;
  return (
    <HeaderPopover label="More room actions" icon={<Ellipsis />}>
      <div className="flex items-center gap-1">{children}</div>
    </HeaderPopover>
  );
}

/** The room's name, and under it its connection, model and token count. */
function RoomTitle({ name, state, status }: { name: string; state: RoomState | undefined; status: ConnectionStatus }) {
  return (
    <div className="min-w-0 flex-1 px-1">
      <h1 className="truncate text-[15px] leading-5 font-semibold text-fg">{name}</h1>
      <div className="flex min-w-0 items-center gap-2 text-xs leading-4 text-fg-muted">
        <ConnectionBadge status={status} />
        {state && (
          <>
            <span aria-hidden="true" className="text-edge-strong">
              ·
            </span>
            <span className="truncate" title="The model answering in this room">
              {state.offline ? "Offline model" : state.activeModel}
            </span>
            <span aria-hidden="true" className="hidden text-edge-strong sm:inline">
              ·
            </span>
            <span
              className="hidden shrink-0 tabular-nums sm:inline"
              title={`${state.usage.inputTokens} input, ${state.usage.outputTokens} output tokens`}
            >
              {formatCount(state.usage.totalTokens)} tokens
            </span>
          </>
        )}
      </div>
    </div>
  );
}

export function RoomHeader({
  roomId,
  name,
  state,
  socket,
  onRename,
  onSettings,
  onDelete,
  onShare,
  onFind
}: {
  roomId: string;
  name: string;
  state: RoomState | undefined;
  socket: RoomSocket;
  onRename: () => void;
  onSettings: () => void;
  onDelete: () => void;
  onShare: () => void;
  onFind: () => void;
}) {
  const ui = useAppUI();
  return (
    <header className="flex h-14 shrink-0 items-center gap-2 border-b border-edge-quiet px-2 sm:px-4">
      {!ui.isDesktop && <OpenSidebarButton />}
      <RoomTitle name={name} state={state} status={socket.status} />
      <PresenceButton users={socket.presence} selfId={socket.selfId} />
      <div className="flex items-center">
        {/* On phones, renaming and deleting live in the settings sheet. */}
        {ui.isDesktop && (
          <IconButton label="Rename room" onClick={onRename}>
            <Pencil />
          </IconButton>
        )}
        <PhoneOverflow phone={!ui.isDesktop}>
          <IconButton label="Find in room" title="Find in room (Ctrl+F)" onClick={onFind}>
            <Search />
          </IconButton>
          <CopyLinkButton roomId={roomId} roomName={name} />
          <ShareButton onClick={onShare} />
          <ExportMenu roomId={roomId} />
          <RoomInfoButton roomId={roomId} />
        </PhoneOverflow>
        <MemoryButton roomId={roomId} revision={state?.memory?.revision ?? 0} />
        <IconButton label="Room settings" onClick={onSettings}>
          <Settings2 />
        </IconButton>
        {ui.isDesktop && (
          <IconButton label="Delete room" tone="danger" onClick={onDelete}>
            <Trash2 />
          </IconButton>
        )}
      </div>
    </header>
  );
}
