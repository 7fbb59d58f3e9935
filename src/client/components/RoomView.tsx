import { CloudOff, Ellipsis, Pencil, Search, Settings2, Trash2, Users } from "lucide-react";
import { type ReactNode, Suspense, useEffect, useId, useMemo, useRef, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { authorOf } from "../../shared/identity";
import { PANEL_PREFIX } from "../../shared/personas";
import type { PresenceUser, RoomState, RoomSummary } from "../../shared/protocol";
import { useAppUI } from "../app-ui";
import { type RoomSocket, useRoomChat, useRoomSocket } from "../hooks/use-chat-room";
import { useMediaQuery } from "../hooks/use-media-query";
import { useOutbox } from "../hooks/use-outbox";
import { useTypingSignal } from "../hooks/use-presence";
import { useRoomAnnouncer } from "../hooks/use-room-announcer";
import { type ConnectionStatus, useRoomList } from "../hooks/use-room-list";
import { TaskRunsContext, useTaskRunsSource } from "../hooks/use-task-runs";
import { useUnread } from "../hooks/use-unread";
import { cn } from "../lib/cn";
import { messagePath } from "../lib/routes";
import { formatCount } from "../lib/time";
import { useAuth } from "./AuthGate";
import { Composer, type ComposerHandle } from "./Composer";
import { CopyLinkButton } from "./CopyLinkButton";
import { FindInRoom } from "./FindInRoom";
import { JumpView } from "./JumpView";
import { LiveAnnouncer } from "./LiveAnnouncer";
import { MessageList, type MessageListHandle } from "./MessageList";
import { NewMessagesBar } from "./NewMessages";
import { OutboxTray } from "./OutboxTray";
import { PersonaColoursProvider } from "./personas/persona-colours";
import { DeleteRoomDialog, RenameRoomDialog } from "./RoomDialogs";
import { RoomInfoButton } from "./RoomInfo";
import { RoomSettingsDialog } from "./RoomSettingsDialog";
import { OpenSidebarButton, RoomGone } from "./RoomStates";
import { ShareButton, ShareDialog } from "./ShareDialog";
import { ExportMenu, ForkButton, useFork } from "./Transfer";
import { Avatar } from "./ui/Avatar";
import { IconButton } from "./ui/Button";
import { HeaderPopover } from "./ui/HeaderPopover";

export function RoomPage() {
  const { roomId = "" } = useParams();
  return <RoomView key={roomId} roomId={roomId} />;
}

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

function PresenceButton({ users, selfId }: { users: PresenceUser[]; selfId: string }) {
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
            <Avatar key={u.name} name={u.name} size="sm" className="ring-2 ring-background" />
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
              <Avatar name={u.name} size="sm" />
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

function RoomHeader({
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
      <div className="min-w-0 flex-1 px-1">
        <h1 className="truncate text-[15px] leading-5 font-semibold text-fg">{name}</h1>
        <div className="flex min-w-0 items-center gap-2 text-xs leading-4 text-fg-muted">
          <ConnectionBadge status={socket.status} />
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

function ConversationSkeleton() {
  return (
    <div role="status" className="flex min-h-0 flex-1 flex-col" aria-busy="true" aria-label="Loading messages">
      <div className="mx-auto w-full max-w-3xl flex-1 space-y-6 px-4 pt-8 sm:px-6">
        {[0.7, 0.45, 0.85].map((w) => (
          <div key={w} className="flex animate-pulse gap-3">
            <div className="size-8 rounded-full bg-edge" />
            <div className="flex-1 space-y-2 pt-1">
              <div className="h-3 w-24 rounded bg-edge" />
              <div className="h-3 rounded bg-surface-3/70" style={{ width: `${w * 100}%` }} />
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}

function RoomConversation({
  socket,
  roomId,
  roomName,
  selfId,
  finding,
  onCloseFind
}: {
  socket: RoomSocket;
  roomId: string;
  roomName: string;
  selfId: string;
  /** Find in room is open; bumped each time it is asked for (0: closed). */
  finding: number;
  onCloseFind: () => void;
}) {
  const chat = useRoomChat(socket, roomId);
  const taskRuns = useTaskRunsSource(socket);
  const ui = useAppUI();
  const isDesktop = useMediaQuery("(min-width: 768px) and (pointer: fine)");
  const composerRef = useRef<ComposerHandle>(null);
  const transcriptRef = useRef<MessageListHandle>(null);
  const [stickSignal, setStickSignal] = useState(0);
  const connected = socket.status === "open";
  const { notifyTyping, stopTyping } = useTypingSignal(socket.agent, connected);
  const [params, setParams] = useSearchParams();
  const jumpTo = params.get("m");
  const leaveJump = () => setParams({}, { replace: true });
  const forking = useFork(roomId);
  const { user } = useAuth();
  const outbox = useOutbox(roomId, socket, chat.appendStored);
  const unread = useUnread({
    roomId,
    messages: chat.messages,
    selfId,
    connected,
    send: (data) => socket.agent.send(data)
  });
  const announcement = useRoomAnnouncer({
    messages: chat.messages,
    busy: chat.busy,
    selfId,
    errors: [chat.serverError, chat.actionError, chat.olderError, chat.error?.message]
  });

  useEffect(() => {
    ui.composerFocusRef.current = () => composerRef.current?.focus();
    return () => {
      ui.composerFocusRef.current = null;
    };
  }, [ui.composerFocusRef]);

  const personas = socket.state?.personas;
  const mentionNames = useMemo(() => (personas ?? []).map((p) => p.name), [personas]);

  const typingUsers = useMemo(
    () => socket.presence.filter((u) => u.typing && u.id !== selfId),
    [socket.presence, selfId]
  );

  if (chat.initialError?.status === 404) return <RoomGone kind="not-found" />;

  const offlineReason =
    socket.status === "open"
      ? null
      : socket.status === "connecting"
        ? "Connecting to the room… You can write now; messages are sent once connected."
        : socket.status === "reconnecting"
          ? "Connection lost. Reconnecting… Messages you send wait and go out on reconnect."
          : "Disconnected. Messages you send wait here; reload the page to reconnect.";

  return (
    <TaskRunsContext.Provider value={taskRuns}>
      {forking.error && (
        <p
          role="alert"
          className="shrink-0 border-b border-danger-line bg-danger-bg px-4 py-1.5 text-xs text-danger-fg"
        >
          Could not fork: {forking.error}
        </p>
      )}
      {finding > 0 && (
        <FindInRoom
          roomId={roomId}
          focusSignal={finding}
          onShow={(id) => setParams({ m: id }, { replace: true })}
          onClose={() => {
            onCloseFind();
            if (jumpTo) leaveJump();
            composerRef.current?.focus();
          }}
        />
      )}
      {jumpTo ? (
        <JumpView
          roomId={roomId}
          messageId={jumpTo}
          onLeave={leaveJump}
          keepFocus={finding > 0}
          renderActions={(m) => (
            <div className="flex justify-end px-6 pb-1">
              <ForkButton onFork={() => void forking.fork(m.id)} />
            </div>
          )}
        />
      ) : (
        <div className="relative flex min-h-0 flex-1 flex-col">
          <MessageList
            ref={transcriptRef}
            chat={chat}
            roomName={roomName}
            selfId={selfId}
            connected={connected}
            stickSignal={stickSignal}
            onFork={(id) => void forking.fork(id)}
            newMessages={unread.start}
          />
          {unread.showBar && unread.start && (
            <NewMessagesBar
              start={unread.start}
              transcript={transcriptRef}
              onJumpFar={(id) => {
                unread.dismissBar();
                setParams({ m: id });
              }}
              onDismiss={unread.dismissBar}
            />
          )}
        </div>
      )}
      <LiveAnnouncer message={announcement} />
      <OutboxTray outbox={outbox} online={connected} />
      <Composer
        ref={composerRef}
        roomId={roomId}
        roomName={roomName}
        offlineReason={offlineReason}
        connecting={socket.status === "connecting" || socket.status === "reconnecting"}
        busy={chat.busy}
        typingUsers={typingUsers}
        onSend={(text) => {
          if (jumpTo) leaveJump();
          outbox.enqueue(text, authorOf(user));
          setStickSignal((n) => n + 1);
        }}
        onAskPanel={
          socket.state?.personas?.length
            ? (text) => {
                if (jumpTo) leaveJump();
                outbox.enqueue(`${PANEL_PREFIX}${text}`, authorOf(user));
                setStickSignal((n) => n + 1);
              }
            : undefined
        }
        onStop={() => {
          chat.stop();
          // The Stop button is about to go: keep focus where the person works.
          composerRef.current?.focus();
        }}
        onTyping={notifyTyping}
        onStopTyping={stopTyping}
        autoFocus={isDesktop}
        mentionNames={mentionNames}
      />
    </TaskRunsContext.Provider>
  );
}

function RoomView({ roomId }: { roomId: string }) {
  const { user } = useAuth();
  const socket = useRoomSocket(roomId, user);
  const { rooms, deletedIds } = useRoomList();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<null | "rename" | "settings" | "delete" | "share">(null);
  const [finding, setFinding] = useState(0);

  // Ctrl+F finds in the room: the transcript is virtual, so the browser's own
  // find would see only the few messages in the page.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "f") {
        event.preventDefault();
        setFinding((n) => n + 1);
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new room closes find
  useEffect(() => setFinding(0), [roomId]);
  const summary: RoomSummary | undefined = useMemo(() => rooms?.find((r) => r.id === roomId), [rooms, roomId]);
  const state = socket.state?.settings ? socket.state : undefined;
  const name = summary?.name ?? state?.settings.name ?? "";

  useEffect(() => {
    document.title = name ? `${name} · Rooms` : "Rooms";
    return () => {
      document.title = "Rooms";
    };
  }, [name]);

  if (deletedIds.has(roomId)) return <RoomGone kind="deleted" />;
  if (socket.connectionError && socket.connectionError.code >= 4000 && socket.connectionError.code < 5000) {
    return <RoomGone kind="not-found" />;
  }

  const roomForDialogs = { id: roomId, name: name || "this room", messageCount: summary?.messageCount ?? 0 };

  return (
    <div className="flex h-full min-w-0 flex-col">
      <RoomHeader
        roomId={roomId}
        name={name || "Loading…"}
        state={state}
        socket={socket}
        onRename={() => setDialog("rename")}
        onSettings={() => setDialog("settings")}
        onDelete={() => setDialog("delete")}
        onShare={() => setDialog("share")}
        onFind={() => setFinding((n) => n + 1)}
      />
      {state?.origin && (
        <div className="flex shrink-0 items-center justify-center gap-1.5 border-b border-edge-quiet px-4 py-1 text-xs text-fg-muted">
          Forked from
          <Link
            className="font-medium text-accent-fg hover:underline"
            to={messagePath(state.origin.roomId, state.origin.messageId)}
          >
            {state.origin.roomName}
          </Link>
        </div>
      )}
      {state?.offline && (
        <div className="flex shrink-0 items-center justify-center gap-2 border-b border-warning-line bg-warning-bg px-4 py-1.5 text-xs text-warning-fg">
          <CloudOff className="size-3.5 shrink-0" aria-hidden="true" />
          <span>
            <b className="font-semibold">Offline model.</b> No model provider is configured on the server, so a built-in
            offline model answers.
          </span>
        </div>
      )}
      <Suspense fallback={<ConversationSkeleton />}>
        <PersonaColoursProvider personas={state?.personas}>
          <RoomConversation
            socket={socket}
            roomId={roomId}
            roomName={name || "this room"}
            selfId={user.id}
            finding={finding}
            onCloseFind={() => setFinding(0)}
          />
        </PersonaColoursProvider>
      </Suspense>

      <RenameRoomDialog room={roomForDialogs} open={dialog === "rename"} onClose={() => setDialog(null)} />
      <ShareDialog
        roomId={roomId}
        roomName={roomForDialogs.name}
        open={dialog === "share"}
        onClose={() => setDialog(null)}
      />
      <RoomSettingsDialog
        roomId={roomId}
        summary={summary}
        state={state}
        open={dialog === "settings"}
        onClose={() => setDialog(null)}
        onDelete={() => setDialog("delete")}
      />
      <DeleteRoomDialog
        room={roomForDialogs}
        open={dialog === "delete"}
        onClose={() => setDialog(null)}
        onDeleted={() => navigate("/", { replace: true, state: { focusHeading: true } })}
      />
    </div>
  );
}
