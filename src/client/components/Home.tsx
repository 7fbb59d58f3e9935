import { MessageSquarePlus, MessagesSquare, PanelLeftOpen } from "lucide-react";
import { useEffect, useRef } from "react";
import { useLocation } from "react-router";
import { useAppUI } from "@/client/app-ui";
import { useRoomList } from "@/client/hooks/use-room-list";
import { MOD } from "./AppDialogs";
import { CenteredState, MobileTopBar } from "./RoomStates";
import { ImportButton } from "./Transfer";
import { Button } from "./ui/Button";
import { Kbd } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

export function Home() {
  const { rooms } = useRoomList();
  const ui = useAppUI();
  const location = useLocation();
  // Arriving here because the room in view was deleted: focus lands on this
  // page's heading, not on <body>.
  const focusHeading = (location.state as { focusHeading?: boolean } | null)?.focusHeading === true;
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusHeading && rooms !== null) headingRef.current?.focus();
  }, [focusHeading, rooms]);
  const empty = rooms !== null && rooms.length === 0;
  // Until the list is known, say nothing that could turn out wrong.
  if (rooms === null) {
    return (
      <div className="flex h-full flex-col" aria-busy="true">
        <MobileTopBar title="Rooms" />
        <div className="flex flex-1 items-center justify-center">
          <Spinner label="Loading rooms" />
        </div>
      </div>
    );
  }
  return (
    <div className="flex h-full flex-col">
      <MobileTopBar title="Rooms" />
      <CenteredState
        icon={<MessagesSquare className="size-6" />}
        title={empty ? "Create your first room" : "Pick a room"}
        headingRef={headingRef}
        actions={
          <>
            <Button variant="primary" onClick={ui.openCreateRoom}>
              <MessageSquarePlus className="size-4" aria-hidden="true" />
              {empty ? "Create your first room" : "New room"}
            </Button>
            {!ui.isDesktop && !empty && (
              <Button onClick={() => ui.setDrawerOpen(true)}>
                <PanelLeftOpen className="size-4" aria-hidden="true" />
                Browse rooms
              </Button>
            )}
          </>
        }
      >
        {empty ? (
          <p>
            Rooms are shared conversations with an AI assistant. Invite others with the link, and everyone sees answers
            as they stream in.
          </p>
        ) : (
          <p>Choose a room from the list, or start a new one. Anyone with a room’s link can join the conversation.</p>
        )}
        <div className="mt-6">
          <ImportButton />
        </div>
        {ui.isDesktop && (
          <p className="mt-4 flex flex-wrap items-center justify-center gap-x-3 gap-y-1 text-xs text-fg-muted">
            <span className="inline-flex items-center gap-1">
              <Kbd>Alt</Kbd>
              <Kbd>N</Kbd> new room
            </span>
            <span className="inline-flex items-center gap-1">
              <Kbd>{MOD}</Kbd>
              <Kbd>K</Kbd> search
            </span>
            <span className="inline-flex items-center gap-1">
              <Kbd>?</Kbd> all shortcuts
            </span>
          </p>
        )}
      </CenteredState>
    </div>
  );
}
