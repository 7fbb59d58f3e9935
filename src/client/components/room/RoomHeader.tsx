/**
 * The room's header: its name, connection, model and token count, who is
 * here, and the room's actions: Copy link, Share and Settings, and the rest
 * (Find, Members, Files, Memory, Tools, Rename, Export, Room info, Delete) named in text
 * under "More room actions". A private room's name carries a lock.
 */
import {
  Brain,
  Check,
  Download,
  Ellipsis,
  FileArchive,
  Files,
  FileText,
  Info,
  Link,
  Lock,
  MessageSquareLock,
  Pencil,
  Plug,
  Search,
  Settings2,
  Share2,
  Trash2,
  Users
} from "lucide-react";
import { useAppUI } from "@/client/app-ui";
import { useCopyLink } from "@/client/components/CopyLinkButton";
import { MuteMentionsItem } from "@/client/components/notifications/MuteMentionsItem";
import { OpenSidebarButton } from "@/client/components/RoomStates";
import { exportHref } from "@/client/components/Transfer";
import { ActionMenu, ActionMenuItem, ActionMenuLink } from "@/client/components/ui/ActionMenu";
import { Button, IconButton } from "@/client/components/ui/Button";
import { allows, useRoomAccess } from "@/client/hooks/use-room-access";
import type { ConnectionStatus } from "@/client/hooks/use-room-list";
import type { RoomSocket } from "@/client/hooks/use-room-socket";
import { cn } from "@/client/lib/cn";
import { formatCount } from "@/client/lib/time";
import { whoMay } from "@/shared/permissions";
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

/** The room's name, and under it its connection, model and token count. */
function RoomTitle({
  name,
  isPrivate,
  state,
  status
}: {
  name: string;
  isPrivate: boolean;
  state: RoomState | undefined;
  status: ConnectionStatus;
}) {
  return (
    <div className="min-w-0 flex-1 px-1">
      <h1 className="flex min-w-0 items-center gap-1 text-[15px] leading-5 font-semibold text-fg">
        {isPrivate && (
          <span title="Private room: only its members and admins see it" className="shrink-0 text-fg-muted">
            <Lock className="size-3.5" aria-hidden="true" />
            <span className="sr-only">Private room: </span>
          </span>
        )}
        <span className="truncate">{name}</span>
      </h1>
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

export type RoomHeaderAction =
  | "rename"
  | "settings"
  | "delete"
  | "share"
  | "info"
  | "find"
  | "members"
  | "files"
  | "memory"
  | "asides"
  | "tools";

/** "Copy link" with its text, saying "Link copied" once it is. */
function CopyLinkTextButton({ roomId, name }: { roomId: string; name: string }) {
  const { state, label, copy } = useCopyLink(roomId, name);
  return (
    <Button size="sm" variant="ghost" aria-label={label} onClick={() => void copy()}>
      {state === "copied" ? (
        <Check className="size-4 text-success" aria-hidden="true" />
      ) : (
        <Link className="size-4" aria-hidden="true" />
      )}
      {state === "copied" ? "Link copied" : "Copy link"}
    </Button>
  );
}

/**
 * The room's other actions, each with its name in text. On a phone the
 * header keeps the title and settings: find, share and copy link move here
 * too; renaming and deleting live in the settings sheet there.
 */
function RoomMenu({
  roomId,
  name,
  phone,
  onAction
}: {
  roomId: string;
  name: string;
  phone: boolean;
  onAction: (action: RoomHeaderAction) => void;
}) {
  const link = useCopyLink(roomId, name);
  const access = useRoomAccess(roomId);
  const refused = (action: "room.rename" | "room.delete") => (allows(access, action) ? undefined : whoMay(action));
  return (
    <ActionMenu label="More room actions" icon={<Ellipsis />}>
      {(close) => {
        const choose = (action: RoomHeaderAction) => () => {
          close();
          onAction(action);
        };
        return (
          <>
            <ActionMenuItem icon={<Search />} label="Find in room" onSelect={choose("find")}>
              Find in room
            </ActionMenuItem>
            <ActionMenuItem icon={<Users />} label="Members" onSelect={choose("members")}>
              Members…
            </ActionMenuItem>
            <ActionMenuItem icon={<Files />} label="Files" onSelect={choose("files")}>
              Files
            </ActionMenuItem>
            <ActionMenuItem icon={<MessageSquareLock />} label="Ask privately" onSelect={choose("asides")}>
              Ask privately
            </ActionMenuItem>
            <ActionMenuItem icon={<Brain />} label="Memory" onSelect={choose("memory")}>
              Memory
            </ActionMenuItem>
            <ActionMenuItem icon={<Plug />} label="Tools" onSelect={choose("tools")}>
              Tools…
            </ActionMenuItem>
            {phone && (
              <>
                <ActionMenuItem icon={<Share2 />} label="Share room" onSelect={choose("share")}>
                  Share room…
                </ActionMenuItem>
                <ActionMenuItem
                  icon={link.state === "copied" ? <Check className="text-success" /> : <Link />}
                  label={link.label}
                  onSelect={() => void link.copy()}
                >
                  {link.state === "copied" ? "Link copied" : "Copy link"}
                </ActionMenuItem>
              </>
            )}
            {!phone && (
              <ActionMenuItem
                icon={<Pencil />}
                label="Rename room"
                onSelect={choose("rename")}
                refusal={refused("room.rename")}
              >
                Rename room…
              </ActionMenuItem>
            )}
            <ActionMenuLink icon={<Download />} href={exportHref(roomId, "json")}>
              Export as JSON (re-importable)
            </ActionMenuLink>
            <ActionMenuLink icon={<FileArchive />} href={exportHref(roomId, "zip")}>
              Export as .zip (with files)
            </ActionMenuLink>
            <ActionMenuLink icon={<FileText />} href={exportHref(roomId, "markdown")}>
              Export as Markdown
            </ActionMenuLink>
            <ActionMenuItem icon={<Info />} label="Room info" onSelect={choose("info")}>
              Room info
            </ActionMenuItem>
            <MuteMentionsItem roomId={roomId} close={close} />
            {!phone && (
              <ActionMenuItem
                icon={<Trash2 />}
                tone="danger"
                label="Delete room"
                onSelect={choose("delete")}
                refusal={refused("room.delete")}
              >
                Delete room…
              </ActionMenuItem>
            )}
          </>
        );
      }}
    </ActionMenu>
  );
}

export function RoomHeader({
  roomId,
  name,
  isPrivate,
  state,
  socket,
  onAction
}: {
  roomId: string;
  name: string;
  isPrivate: boolean;
  state: RoomState | undefined;
  socket: RoomSocket;
  onAction: (action: RoomHeaderAction) => void;
}) {
  const ui = useAppUI();
  const phone = !ui.isDesktop;
  return (
    <header className="flex h-14 shrink-0 items-center gap-2 border-b border-edge-quiet px-2 sm:px-4">
      {phone && <OpenSidebarButton />}
      <RoomTitle name={name} isPrivate={isPrivate} state={state} status={socket.status} />
      <PresenceButton users={socket.presence} selfId={socket.selfId} />
      {/* No gaps on a phone: every pixel there is the room's name's. */}
      <div className={cn("flex items-center", !phone && "gap-0.5")}>
        {!phone && (
          <>
            <CopyLinkTextButton roomId={roomId} name={name} />
            <Button size="sm" variant="secondary" aria-label="Share room" onClick={() => onAction("share")}>
              <Share2 className="size-4" aria-hidden="true" />
              Share
            </Button>
          </>
        )}
        <IconButton label="Room settings" onClick={() => onAction("settings")}>
          <Settings2 />
        </IconButton>
        <RoomMenu roomId={roomId} name={name} phone={phone} onAction={onAction} />
      </div>
    </header>
  );
}
