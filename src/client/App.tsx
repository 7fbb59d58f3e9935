import {
  lazy,
  type KeyboardEvent as ReactKeyboardEvent,
  Suspense,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState
} from "react";
import { Route, Routes, useLocation, useMatch, useNavigate } from "react-router";
import { type AppUI, AppUIContext } from "./app-ui";
import { DisplayNameDialog, ShortcutsDialog } from "./components/AppDialogs";
import { Home } from "./components/Home";
import { CreateRoomDialog } from "./components/RoomDialogs";
import { PageNotFound } from "./components/RoomStates";
import { Sidebar } from "./components/Sidebar";
import { anyDialogOpen } from "./components/ui/Dialog";
import { DESKTOP_QUERY, useMediaQuery } from "./hooks/use-media-query";
import { RoomListProvider, useRoomList } from "./hooks/use-room-list";
import { cn } from "./lib/cn";
import { retryingImport } from "./lib/retrying-import";
import { ROOM_ROUTE, roomPath } from "./lib/routes";

/** The room view (chat runtime, AI SDK) is its own chunk; start loading it early on deep links. */
const loadRoomView = () => import("./components/RoomView");
if (/^\/sub\/chat-room\//.test(window.location.pathname)) void loadRoomView();
const RoomPage = lazy(retryingImport(() => loadRoomView().then((m) => ({ default: m.RoomPage }))));

function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === "INPUT" ||
    target.tagName === "TEXTAREA" ||
    target.tagName === "SELECT"
  );
}

function Shell() {
  const [dialog, setDialog] = useState<null | "create" | "shortcuts" | "name">(null);
  const [drawerOpen, setDrawerOpenState] = useState(false);
  const isDesktop = useMediaQuery(DESKTOP_QUERY);
  const filterRef = useRef<HTMLInputElement>(null);
  const sidebarHeadingRef = useRef<HTMLHeadingElement>(null);
  const listedRoomIdsRef = useRef<string[] | null>(null);
  const composerFocusRef = useRef<(() => void) | null>(null);
  const drawerOpenerRef = useRef<HTMLElement | null>(null);
  const navigate = useNavigate();
  const location = useLocation();
  const openRoomId = useMatch(ROOM_ROUTE)?.params.roomId ?? null;
  const { rooms } = useRoomList();

  const setDrawerOpen = useCallback((open: boolean) => {
    if (open) drawerOpenerRef.current = document.activeElement as HTMLElement | null;
    setDrawerOpenState(open);
  }, []);

  // Drawer focus: to its heading on open (not the filter, whose soft keyboard
  // would cover the list), back to the opener on close.
  const wasOpen = useRef(false);
  useEffect(() => {
    if (isDesktop) return;
    if (drawerOpen) {
      requestAnimationFrame(() => sidebarHeadingRef.current?.focus({ preventScroll: true }));
    } else if (wasOpen.current) {
      const opener = drawerOpenerRef.current;
      if (opener?.isConnected) opener.focus();
    }
    wasOpen.current = drawerOpen;
  }, [drawerOpen, isDesktop]);

  // Navigating closes the drawer.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is the trigger, not an input
  useEffect(() => {
    setDrawerOpenState(false);
  }, [location.pathname]);

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

  // Warm the room chunk once the first screen is up.
  useEffect(() => {
    const timer = setTimeout(() => void loadRoomView(), 1_500);
    return () => clearTimeout(timer);
  }, []);

  const roomsRef = useRef(rooms);
  roomsRef.current = rooms;
  // Read when a key is pressed, not captured when the listener was added: a
  // press right after a navigation must start from the room it went to.
  const openRoomIdRef = useRef(openRoomId);
  openRoomIdRef.current = openRoomId;

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      if (anyDialogOpen()) return; // dialogs handle their own keys
      const typing = isTypingTarget(event.target);
      const mod = event.ctrlKey || event.metaKey;

      if (
        (event.altKey && !mod && !event.shiftKey && event.code === "KeyN") ||
        (event.ctrlKey && event.shiftKey && event.code === "KeyO")
      ) {
        event.preventDefault();
        setDialog("create");
        return;
      }
      if ((mod && !event.altKey && event.code === "KeyK") || (!typing && !mod && !event.altKey && event.key === "/")) {
        event.preventDefault();
        if (!isDesktop) setDrawerOpen(true);
        const input = filterRef.current;
        input?.focus();
        input?.select();
        return;
      }
      if (event.altKey && !mod && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
        // The sidebar's order under its filter; all rooms when the filter matches none.
        const listed = listedRoomIdsRef.current;
        const ids = listed?.length ? listed : (roomsRef.current ?? []).map((r) => r.id);
        if (ids.length === 0) return;
        event.preventDefault();
        // The room this press starts from: the route's, or the one the last
        // press went to when the route has not re-rendered yet (two quick presses).
        const current = openRoomIdRef.current ?? "";
        const index = ids.indexOf(current);
        const next =
          index === -1
            ? event.key === "ArrowDown"
              ? 0
              : ids.length - 1
            : (index + (event.key === "ArrowDown" ? 1 : -1) + ids.length) % ids.length;
        openRoomIdRef.current = ids[next];
        navigate(roomPath(ids[next]));
        return;
      }
      if (event.key === "Escape" && event.shiftKey) {
        event.preventDefault();
        composerFocusRef.current?.();
        return;
      }
      if (event.key === "Escape" && drawerOpen && !isDesktop) {
        event.preventDefault();
        setDrawerOpen(false);
        return;
      }
      if (!typing && !mod && event.key === "?") {
        event.preventDefault();
        setDialog("shortcuts");
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [drawerOpen, isDesktop, navigate, setDrawerOpen]);

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
            <Route path="*" element={<PageNotFound />} />
          </Routes>
        </main>
      </div>
      <CreateRoomDialog open={dialog === "create"} onClose={() => setDialog(null)} />
      <ShortcutsDialog open={dialog === "shortcuts"} onClose={() => setDialog(null)} />
      <DisplayNameDialog open={dialog === "name"} onClose={() => setDialog(null)} />
    </AppUIContext.Provider>
  );
}

/**
 * Keeps Tab inside a modal container: past the last element back to the
 * first, and the reverse. It reads the container's focusable elements: a
 * focus trap is about the DOM's tab order itself, which no React state holds.
 * `start` (the heading focused on open) counts as before the first.
 */
function trapTab(event: ReactKeyboardEvent<HTMLElement>, start: HTMLElement | null) {
  if (event.key !== "Tab") return;
  const focusable = [
    ...event.currentTarget.querySelectorAll<HTMLElement>(
      'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select, [tabindex]:not([tabindex="-1"])'
    )
  ].filter((el) => el.getClientRects().length > 0);
  const first = focusable[0];
  const last = focusable.at(-1);
  if (!first || !last) return;
  const active = document.activeElement;
  if (
    event.shiftKey &&
    (active === first || !event.currentTarget.contains(active) || (start !== null && active === start))
  ) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && active === last) {
    event.preventDefault();
    first.focus();
  }
}

export function App() {
  return (
    <RoomListProvider>
      <Shell />
    </RoomListProvider>
  );
}
