import { lazy, Suspense, useEffect, useMemo, useRef, useState } from "react";
import { Route, Routes, useMatch } from "react-router";
import { type AppUI, AppUIContext } from "./app-ui";
import { DisplayNameDialog, ShortcutsDialog } from "./components/AppDialogs";
import { Home } from "./components/Home";
import { CreateRoomDialog } from "./components/RoomDialogs";
import { PageNotFound } from "./components/RoomStates";
import { Sidebar } from "./components/Sidebar";
import { useDrawer } from "./hooks/use-drawer";
import { useGlobalShortcuts } from "./hooks/use-global-shortcuts";
import { DESKTOP_QUERY, useMediaQuery } from "./hooks/use-media-query";
import { RoomListProvider } from "./hooks/use-room-list";
import { cn } from "./lib/cn";
import { trapTab } from "./lib/focus-trap";
import { retryingImport } from "./lib/retrying-import";
import { INVITE_ROUTE, PEOPLE_ROUTE, ROOM_ROUTE } from "./lib/routes";

/** The room view (chat runtime, AI SDK) is its own chunk; start loading it early on deep links. */
const loadRoomView = () => import("./components/RoomView");
if (/^\/sub\/chat-room\//.test(window.location.pathname)) void loadRoomView();
const RoomPage = lazy(retryingImport(() => loadRoomView().then((m) => ({ default: m.RoomPage }))));
const PeoplePage = lazy(
  retryingImport(() => import("./components/people/PeoplePage").then((m) => ({ default: m.PeoplePage })))
);
const InvitePage = lazy(
  retryingImport(() => import("./components/members/InvitePage").then((m) => ({ default: m.InvitePage })))
);

/** The pages: home, a room, an invitation, the workspace's people. */
function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<Home />} />
      <Route
        path={ROOM_ROUTE}
        element={
          <Suspense fallback={null}>
            <RoomPage />
          </Suspense>
        }
      />
      <Route
        path={INVITE_ROUTE}
        element={
          <Suspense fallback={null}>
            <InvitePage />
          </Suspense>
        }
      />
      <Route
        path={PEOPLE_ROUTE}
        element={
          <Suspense fallback={null}>
            <PeoplePage />
          </Suspense>
        }
      />
      <Route path="*" element={<PageNotFound />} />
    </Routes>
  );
}

function Shell() {
  const [dialog, setDialog] = useState<null | "create" | "shortcuts" | "name">(null);
  const isDesktop = useMediaQuery(DESKTOP_QUERY);
  const filterRef = useRef<HTMLInputElement>(null);
  const sidebarHeadingRef = useRef<HTMLParagraphElement>(null);
  const listedRoomIdsRef = useRef<string[] | null>(null);
  const composerFocusRef = useRef<(() => void) | null>(null);
  const openRoomId = useMatch(ROOM_ROUTE)?.params.roomId ?? null;
  const [drawerOpen, setDrawerOpen] = useDrawer(isDesktop, sidebarHeadingRef);

  const ui = useMemo<AppUI>(
    () => ({
      openCreateRoom: () => setDialog("create"),
      openShortcuts: () => setDialog("shortcuts"),
      openDisplayName: () => setDialog("name"),
      drawerOpen,
      setDrawerOpen,
      isDesktop,
      filterRef,
      sidebarHeadingRef,
      listedRoomIdsRef,
      composerFocusRef
    }),
    [drawerOpen, setDrawerOpen, isDesktop]
  );
  useGlobalShortcuts(ui, openRoomId);

  // Warm the room chunk once the first screen is up.
  useEffect(() => {
    const timer = setTimeout(() => void loadRoomView(), 1_500);
    return () => clearTimeout(timer);
  }, []);

  const drawerHidden = !isDesktop && !drawerOpen;
  // The open drawer is modal: everything behind it is inert.
  const behindDrawer = !isDesktop && drawerOpen;

  return (
    <AppUIContext.Provider value={ui}>
      <a
        href="#main"
        inert={behindDrawer}
        className="sr-only z-50 rounded-lg bg-surface px-3 py-2 text-sm font-medium shadow focus:not-sr-only focus:fixed focus:inline-flex focus:min-h-11 focus:items-center focus:top-2 focus:left-2"
      >
        Skip to conversation
      </a>
      <div className="flex h-dvh overflow-hidden bg-background text-foreground">
        {!isDesktop && (
          <div
            aria-hidden="true"
            onClick={() => setDrawerOpen(false)}
            className={cn(
              "fixed inset-0 z-30 bg-scrim backdrop-blur-[1px] transition-opacity duration-200",
              drawerOpen ? "opacity-100" : "pointer-events-none opacity-0"
            )}
          />
        )}
        {/* biome-ignore lint/a11y/noStaticElementInteractions: on phones this is role="dialog" (set below), and the Tab trap only runs then */}
        <div
          id="sidebar"
          inert={drawerHidden}
          aria-hidden={drawerHidden || undefined}
          {...(isDesktop ? {} : { role: "dialog", "aria-modal": drawerOpen || undefined, "aria-label": "Rooms" })}
          onKeyDown={behindDrawer ? (event) => trapTab(event, sidebarHeadingRef.current) : undefined}
          className={cn(
            "z-40 shrink-0 border-r border-edge-quiet",
            isDesktop
              ? "relative w-72 lg:w-80"
              : cn(
                  "fixed inset-y-0 left-0 w-[min(22rem,86vw)] transition-[translate,box-shadow] duration-200 ease-out",
                  drawerOpen ? "translate-x-0 shadow-2xl" : "-translate-x-full shadow-none"
                )
          )}
        >
          <Sidebar />
        </div>
        <main id="main" inert={behindDrawer} className="flex min-w-0 flex-1 flex-col">
          <AppRoutes />
        </main>
      </div>
      <CreateRoomDialog open={dialog === "create"} onClose={() => setDialog(null)} />
      <ShortcutsDialog open={dialog === "shortcuts"} onClose={() => setDialog(null)} />
      <DisplayNameDialog open={dialog === "name"} onClose={() => setDialog(null)} />
    </AppUIContext.Provider>
  );
}

export function App() {
  return (
    <RoomListProvider>
      <Shell />
    </RoomListProvider>
  );
}
