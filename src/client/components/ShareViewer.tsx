/**
 * `/share/<token>`: a room, read-only and live, for someone holding a share
 * link and no session. It never touches the signed-in app: no sign-in gate,
 * no room list, no composer. History pages come from the link's own REST
 * address and the live room from the link's own socket, which the server
 * routes to the one room the link names as a readonly connection.
 */
import { Eye, Files, LinkIcon, LogIn } from "lucide-react";
import { Suspense, useEffect, useMemo, useState } from "react";
import { useRoomChat } from "@/client/hooks/use-chat-room";
import type { HistorySource } from "@/client/hooks/use-older-pages";
import { useRoomSocket } from "@/client/hooks/use-room-socket";
import { ApiError, api, errorMessage } from "@/client/lib/api";
import { roomPath } from "@/client/lib/routes";
import type { Identity } from "@/shared/identity";
import { SHARE_CLOSED_CODE, type ShareView } from "@/shared/shares";
import { FilesPanel, type FilesSource } from "./files/FilesPanel";
import { FileLinksContext, shareFileLinks } from "./files/file-links";
import { MessageList } from "./MessageList";
import { PersonaColoursProvider } from "./personas/persona-colours";
import { CenteredState } from "./RoomStates";
import { buttonClass, IconButton } from "./ui/Button";
import { Spinner } from "./ui/Spinner";

/** Who the viewer is to the page: no one the room knows, so nothing is theirs to edit. */
const VIEWER: Identity = { id: "viewer", name: "Viewer", kind: "api" };

function LinkGone() {
  return (
    <CenteredState icon={<LinkIcon className="size-6" />} title="This link is no longer valid">
      It was revoked or has expired. Ask whoever shared the room for a new link.
    </CenteredState>
  );
}

type Opening =
  | { kind: "loading" }
  | { kind: "open"; view: ShareView }
  | { kind: "gone" }
  | { kind: "failed"; message: string };

export function ShareViewerPage({ token }: { token: string }) {
  const [opening, setOpening] = useState<Opening>({ kind: "loading" });

  useEffect(() => {
    let cancelled = false;
    api.openShare(token).then(
      (view) => !cancelled && setOpening({ kind: "open", view }),
      (error: unknown) => {
        if (cancelled) return;
        if (error instanceof ApiError && error.status === 404) setOpening({ kind: "gone" });
        else setOpening({ kind: "failed", message: errorMessage(error) });
      }
    );
    return () => {
      cancelled = true;
    };
  }, [token]);

  useEffect(() => {
    const name = opening.kind === "open" ? opening.view.roomName : null;
    document.title = name ? `${name} · shared · Rooms` : "Shared room · Rooms";
  }, [opening]);

  return (
    <main id="main" className="flex h-dvh min-w-0 flex-col bg-background text-foreground">
      {opening.kind === "loading" && (
        <div className="flex flex-1 items-center justify-center text-fg-faint" aria-busy="true">
          <Spinner label="Opening the shared room" />
        </div>
      )}
      {opening.kind === "gone" && <LinkGone />}
      {opening.kind === "failed" && (
        <CenteredState icon={<LinkIcon className="size-6" />} title="Could not open this link">
          {opening.message}
        </CenteredState>
      )}
      {opening.kind === "open" && <SharedRoom token={token} view={opening.view} />}
    </main>
  );
}

function SharedRoom({ token, view }: { token: string; view: ShareView }) {
  const basePath = `api/share/${encodeURIComponent(token)}/socket`;
  const socket = useRoomSocket(view.roomId, VIEWER, { basePath });
  const links = useMemo(() => shareFileLinks(token), [token]);
  const [filesOpen, setFilesOpen] = useState(false);
  // Read-only: a link lists and opens the room's files, and has no way to add or remove one.
  const files = useMemo<FilesSource>(
    () => ({
      roomId: view.roomId,
      list: (query, signal) => api.shareFiles(token, query, signal),
      onFrame: socket.onFrame
    }),
    [token, view.roomId, socket.onFrame]
  );
  const closedCode = socket.connectionError?.code;
  if (closedCode === SHARE_CLOSED_CODE || (closedCode !== undefined && closedCode >= 4000 && closedCode < 5000)) {
    return <LinkGone />;
  }
  const label = { open: "Live", connecting: "Connecting…", reconnecting: "Reconnecting…", closed: "Disconnected" }[
    socket.status
  ];
  return (
    <FileLinksContext.Provider value={links}>
      <header className="flex h-14 shrink-0 items-center gap-3 border-b border-edge-quiet px-4">
        <div className="min-w-0 flex-1">
          <h1 className="truncate text-[15px] leading-5 font-semibold text-fg">{view.roomName}</h1>
          <p className="flex items-center gap-2 text-xs leading-4 text-fg-muted">
            <span role="status" aria-label={`Connection: ${label}`}>
              {label}
            </span>
            <span aria-hidden="true">·</span>
            <span>{view.expiresAt ? `Link expires ${new Date(view.expiresAt).toLocaleString()}` : "Shared link"}</span>
          </p>
        </div>
        <IconButton label="Files" onClick={() => setFilesOpen(true)}>
          <Files />
        </IconButton>
        <span className="inline-flex items-center gap-1.5 rounded-full bg-surface-2 px-2.5 py-1 text-xs font-medium text-fg-3">
          <Eye className="size-3.5" aria-hidden="true" />
          Read-only
        </span>
      </header>
      <Suspense
        fallback={
          <div className="flex flex-1 items-center justify-center text-fg-faint" aria-busy="true">
            <Spinner label="Loading messages" />
          </div>
        }
      >
        <SharedConversation token={token} view={view} socket={socket} />
      </Suspense>
      <p className="flex shrink-0 flex-wrap items-center justify-center gap-x-3 gap-y-1 border-t border-edge-quiet px-4 py-2 text-center text-xs text-fg-muted">
        <span>You are watching a shared room. Only its members can write here.</span>
        {/* The room's own address: the sign-in screen first, then the room, for anyone it lets in. */}
        <a href={roomPath(view.roomId)} className={buttonClass({ variant: "primary", size: "sm" })}>
          <LogIn className="size-3.5" aria-hidden="true" />
          Sign in to take part
        </a>
      </p>
      <FilesPanel open={filesOpen} onClose={() => setFilesOpen(false)} source={files} />
    </FileLinksContext.Provider>
  );
}

function SharedConversation({
  token,
  view,
  socket
}: {
  token: string;
  view: ShareView;
  socket: ReturnType<typeof useRoomSocket>;
}) {
  const source = useMemo<HistorySource>(
    () => ({ key: `share:${token}`, page: (query) => api.shareMessages(token, query) }),
    [token]
  );
  const chat = useRoomChat(socket, view.roomId, source);
  if (chat.initialError?.status === 404) return <LinkGone />;
  // `connected` false: a viewer is offered no edit, regenerate or retry.
  return (
    <PersonaColoursProvider personas={socket.state?.personas}>
      <MessageList chat={chat} roomName={view.roomName} selfId={VIEWER.id} connected={false} stickSignal={0} />
    </PersonaColoursProvider>
  );
}
