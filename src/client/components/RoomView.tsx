/**
 * The room page: header, banners, the conversation (room/RoomConversation.tsx)
 * and the room's dialogs. Keyed by the room's id, so another room starts
 * from a clean slate.
 */
import { Activity, memo, Suspense, useEffect, useMemo, useRef, useState } from "react";
import { type SetURLSearchParams, useNavigate, useParams, useSearchParams } from "react-router";
import { TaskRunsProvider } from "@/client/components/tasks/TaskRunsProvider";
import { useFindShortcut } from "@/client/hooks/use-find-shortcut";
import { useReactionsFeed } from "@/client/hooks/use-reactions-feed";
import { useRoomList } from "@/client/hooks/use-room-list";
import { useRoomSocket } from "@/client/hooks/use-room-socket";
import { useStableCallback } from "@/client/hooks/use-stable-callback";
import { keptRooms } from "@/client/lib/kept-rooms";
import { prefetchedRooms } from "@/client/lib/room-pages";
import { forgetWarm } from "@/client/lib/warm-rooms";
import { ROOM_FULL_CODE } from "@/shared/constants";
import { ACCESS_REVOKED_CODE } from "@/shared/members";
import type { RoomState, RoomSummary } from "@/shared/protocol";
import { useAuth } from "./AuthGate";
import { AsidesDialog } from "./asides/AsidesPanel";
import { RoomFilesPanel } from "./files/FilesPanel";
import { MembersDialog } from "./members/MembersPanel";
import { MemoryDialog } from "./memory/MemoryPanel";
import { PersonaColoursProvider } from "./personas/persona-colours";
import { DeleteRoomDialog, RenameRoomDialog } from "./RoomDialogs";
import { RoomInfoDialog } from "./RoomInfo";
import { RoomSettingsDialog } from "./RoomSettingsDialog";
import { RoomGone } from "./RoomStates";
import { ConversationSkeleton, RoomBanners } from "./room/RoomBanners";
import { RoomConversation } from "./room/RoomConversation";
import { RoomHeader, type RoomHeaderAction } from "./room/RoomHeader";
import { RoomIdContext, RoomSearchContext } from "./room/room-route";
import { ShareDialog } from "./ShareDialog";
import { ToolsDialog } from "./tools/ToolsPanel";

/**
 * The open room, and the last few rooms left (lib/kept-rooms.ts), hidden by
 * React's <Activity>: their effects, and so their sockets, stop while
 * hidden, and switching back only shows the room again. Its socket then
 * joins again, and its opening page brings in what was written meanwhile
 * (hooks/use-chat-room.ts). Rooms left longer ago come back from their warm
 * copy (lib/warm-rooms.ts).
 */
export function RoomPage() {
  const { roomId = "" } = useParams();
  const [kept, setKept] = useState<string[]>(() => [roomId]);
  const lastOpen = useRef(new Map<string, number>());
  const clock = useRef(0);
  if (lastOpen.current.get(roomId) !== clock.current) lastOpen.current.set(roomId, ++clock.current);
  const next = keptRooms(kept, lastOpen.current, roomId);
  if (next !== kept) setKept(next);
  // Each kept room keeps the search params it had when it was last shown (room/room-route.ts).
  const [searchParams, setSearchParams] = useSearchParams();
  const setSearch: SetURLSearchParams = useStableCallback(setSearchParams);
  const searches = useRef(new Map<string, string>());
  searches.current.set(roomId, searchParams.toString());
  for (const id of searches.current.keys()) if (!next.includes(id)) searches.current.delete(id);
  return next.map((id) => (
    <Activity key={id} mode={id === roomId ? "visible" : "hidden"}>
      <RoomView roomId={id} search={searches.current.get(id) ?? ""} setSearch={setSearch} />
    </Activity>
  ));
}

type RoomDialog = null | Exclude<RoomHeaderAction, "find">;

/** Memoised: a navigation re-renders RoomPage, and the rooms it keeps have nothing new to draw for it. */
const RoomView = memo(function RoomView({
  roomId,
  search,
  setSearch
}: {
  roomId: string;
  /** This room's own search params (`?m=`, `?mcp_error=`): the route's while it is shown. */
  search: string;
  setSearch: SetURLSearchParams;
}) {
  const { user } = useAuth();
  const socket = useRoomSocket(roomId, user);
  useReactionsFeed(roomId, socket);
  const { rooms, deletedIds, revokedIds } = useRoomList();
  const [dialog, setDialog] = useState<RoomDialog>(null);
  const [finding, setFinding] = useFindShortcut(roomId);
  const summary: RoomSummary | undefined = useMemo(() => rooms?.find((r) => r.id === roomId), [rooms, roomId]);
  const state = socket.state?.settings ? socket.state : undefined;
  const roomSearch = useMemo(
    () => ({ params: new URLSearchParams(search), setParams: setSearch }),
    [search, setSearch]
  );
  const name = summary?.name ?? state?.settings.name ?? "";

  useEffect(() => {
    document.title = name ? `${name} · Rooms` : "Rooms";
    return () => {
      document.title = "Rooms";
    };
  }, [name]);

  // Removed, or the room made private: the list says so, and the socket closes with ACCESS_REVOKED_CODE.
  const revoked = revokedIds.has(roomId) || socket.connectionError?.code === ACCESS_REVOKED_CODE;
  // Neither comes back warm (lib/warm-rooms.ts).
  if (revoked || deletedIds.has(roomId)) {
    forgetWarm(roomId);
    prefetchedRooms.forget(roomId);
  }
  if (revoked) return <RoomGone kind="revoked" />;
  if (deletedIds.has(roomId)) return <RoomGone kind="deleted" />;
  // Refused for want of room (domain/sockets/socket-budget.ts on the server): it is there, just full.
  if (socket.connectionError?.code === ROOM_FULL_CODE) return <RoomGone kind="full" />;
  if (socket.connectionError && socket.connectionError.code >= 4000 && socket.connectionError.code < 5000) {
    return <RoomGone kind="not-found" />;
  }

  return (
    <RoomIdContext value={roomId}>
      <RoomSearchContext value={roomSearch}>
        <div className="flex h-full min-w-0 flex-col">
          <RoomHeader
            roomId={roomId}
            name={name || "Loading…"}
            isPrivate={summary?.visibility === "private"}
            state={state}
            socket={socket}
            onAction={(action) => (action === "find" ? setFinding((n) => n + 1) : setDialog(action))}
          />
          <RoomBanners state={state} />
          <TaskRunsProvider socket={socket}>
            <Suspense fallback={<ConversationSkeleton />}>
              <PersonaColoursProvider personas={state?.personas}>
                <RoomConversation
                  socket={socket}
                  roomId={roomId}
                  roomName={name || "this room"}
                  finding={finding}
                  onCloseFind={() => setFinding(0)}
                />
              </PersonaColoursProvider>
            </Suspense>
          </TaskRunsProvider>
          <RoomDialogs
            roomId={roomId}
            name={name}
            summary={summary}
            state={state}
            dialog={dialog}
            setDialog={setDialog}
          />
          <RoomFilesPanel
            roomId={roomId}
            selfId={socket.selfId}
            onFrame={socket.onFrame}
            open={dialog === "files"}
            onClose={() => setDialog(null)}
          />
          <AsidesDialog roomId={roomId} open={dialog === "asides"} onClose={() => setDialog(null)} />
          <MemoryDialog
            roomId={roomId}
            revision={state?.memory?.revision ?? 0}
            open={dialog === "memory"}
            onClose={() => setDialog(null)}
          />
        </div>
      </RoomSearchContext>
    </RoomIdContext>
  );
});

function RoomDialogs({
  roomId,
  name,
  summary,
  state,
  dialog,
  setDialog
}: {
  roomId: string;
  name: string;
  summary: RoomSummary | undefined;
  state: RoomState | undefined;
  dialog: RoomDialog;
  setDialog: (dialog: RoomDialog) => void;
}) {
  const navigate = useNavigate();
  const room = { id: roomId, name: name || "this room", messageCount: summary?.messageCount ?? 0 };
  const close = () => setDialog(null);
  return (
    <>
      <RenameRoomDialog room={room} open={dialog === "rename"} onClose={close} />
      <ShareDialog roomId={roomId} roomName={room.name} open={dialog === "share"} onClose={close} />
      <MembersDialog
        roomId={roomId}
        roomName={room.name}
        open={dialog === "members"}
        onClose={close}
        onLeft={() => navigate("/", { replace: true, state: { focusHeading: true } })}
      />
      <RoomInfoDialog roomId={roomId} open={dialog === "info"} onClose={close} />
      <ToolsDialog roomId={roomId} roomName={room.name} open={dialog === "tools"} onClose={close} />
      <RoomSettingsDialog
        roomId={roomId}
        summary={summary}
        state={state}
        open={dialog === "settings"}
        onClose={close}
        onDelete={() => setDialog("delete")}
      />
      <DeleteRoomDialog
        room={room}
        open={dialog === "delete"}
        onClose={close}
        onDeleted={() => navigate("/", { replace: true, state: { focusHeading: true } })}
      />
    </>
  );
}
