import { ArrowLeft, Lock, Menu, MessageSquarePlus, SearchX, Trash2, Users } from "lucide-react";
import type { ReactNode, Ref } from "react";
import { Link } from "react-router";
import { useAppUI } from "@/client/app-ui";
import { Button, buttonClass, IconButton } from "./ui/Button";

/** Opens the room list as a drawer (narrow screens, where the sidebar is one). */
export function OpenSidebarButton() {
  const ui = useAppUI();
  return (
    <IconButton
      label="Open sidebar"
      aria-expanded={ui.drawerOpen}
      aria-controls="sidebar"
      onClick={() => ui.setDrawerOpen(true)}
    >
      <Menu />
    </IconButton>
  );
}

/** Top bar for pages without a room header (narrow screens only). */
export function MobileTopBar({ title }: { title: string }) {
  const ui = useAppUI();
  if (ui.isDesktop) return null;
  return (
    <div className="flex h-14 shrink-0 items-center gap-2 border-b border-edge-quiet px-2">
      <OpenSidebarButton />
      <span className="truncate text-[15px] font-semibold">{title}</span>
    </div>
  );
}

export function CenteredState({
  icon,
  title,
  children,
  actions,
  headingRef
}: {
  icon: ReactNode;
  title: string;
  /** For pages that move focus to their heading. */
  headingRef?: Ref<HTMLHeadingElement>;
  children?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="flex flex-1 items-center justify-center overflow-y-auto p-6">
      <div className="flex max-w-md flex-col items-center text-center animate-fade-in">
        <div className="mb-5 flex size-14 items-center justify-center rounded-2xl bg-surface-2 text-fg-muted">
          {icon}
        </div>
        <h1 ref={headingRef} tabIndex={-1} className="text-xl font-semibold tracking-tight focus:outline-none text-fg">
          {title}
        </h1>
        {children && <div className="mt-2 text-sm leading-6 text-fg-muted">{children}</div>}
        {actions && <div className="mt-6 flex flex-wrap items-center justify-center gap-2">{actions}</div>}
      </div>
    </div>
  );
}

const GONE = {
  deleted: {
    icon: <Trash2 className="size-6" />,
    title: "This room was deleted",
    text: "Someone deleted this room and all of its messages. Pick another room or start a new one."
  },
  "not-found": {
    icon: <SearchX className="size-6" />,
    title: "Room not found",
    text: "There is no room at this address. It may have been deleted, or the link is wrong."
  },
  full: {
    icon: <Users className="size-6" />,
    title: "This room is full right now",
    text: "It has as many connections open as it takes, and its last places are kept for its members. Close it in another tab, or try again in a minute."
  },
  revoked: {
    icon: <Lock className="size-6" />,
    title: "You no longer have access to this room",
    text: "You were removed from this private room, or it was made private. Ask its owner for a new invitation to come back."
  }
} as const;

export function RoomGone({ kind }: { kind: keyof typeof GONE }) {
  const ui = useAppUI();
  const gone = GONE[kind];
  return (
    <div className="flex h-full flex-col">
      <MobileTopBar title="Rooms" />
      <CenteredState
        icon={gone.icon}
        title={gone.title}
        actions={
          <>
            <Link to="/" className={buttonClass()}>
              <ArrowLeft className="size-4" aria-hidden="true" />
              Back to rooms
            </Link>
            <Button variant="primary" onClick={ui.openCreateRoom}>
              <MessageSquarePlus className="size-4" aria-hidden="true" />
              New room
            </Button>
          </>
        }
      >
        {gone.text}
      </CenteredState>
    </div>
  );
}

export function PageNotFound() {
  return (
    <div className="flex h-full flex-col">
      <MobileTopBar title="Rooms" />
      <CenteredState
        icon={<SearchX className="size-6" />}
        title="Page not found"
        actions={
          <Link to="/" className={buttonClass()}>
            <ArrowLeft className="size-4" aria-hidden="true" />
            Back to rooms
          </Link>
        }
      >
        Nothing lives at this address.
      </CenteredState>
    </div>
  );
}
