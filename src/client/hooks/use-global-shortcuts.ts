/**
 * The app's keyboard shortcuts, on the window: Alt+N (Ctrl+Shift+O) new
 * room, Ctrl+K or / the filter, Alt+↑/↓ the previous or next room as the
 * sidebar lists them, Shift+Esc the composer, Esc closes the drawer, ?
 * the shortcuts. Dialogs handle their own keys; typing keeps / and ?.
 */
import { useEffect, useRef } from "react";
import { useNavigate } from "react-router";
import type { AppUI } from "@/client/app-ui";
import { anyDialogOpen } from "@/client/components/ui/Dialog";
import { roomPath } from "@/client/lib/routes";
import { useRoomList } from "./use-room-list";

function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === "INPUT" ||
    target.tagName === "TEXTAREA" ||
    target.tagName === "SELECT"
  );
}

/** The room a step of Alt+↑/↓ goes to, from `current` in `ids` (wrapping); the first or last from elsewhere. */
function stepRoom(ids: string[], current: string, down: boolean): string {
  const index = ids.indexOf(current);
  if (index === -1) return down ? ids[0] : ids[ids.length - 1];
  return ids[(index + (down ? 1 : -1) + ids.length) % ids.length];
}

export function useGlobalShortcuts(ui: AppUI, openRoomId: string | null) {
  const navigate = useNavigate();
  const { rooms } = useRoomList();
  const roomsRef = useRef(rooms);
  roomsRef.current = rooms;
  // Read when a key is pressed, not captured when the listener was added: a
  // press right after a navigation must start from the room it went to.
  const openRoomIdRef = useRef(openRoomId);
  openRoomIdRef.current = openRoomId;
  const { drawerOpen, isDesktop, setDrawerOpen, filterRef, listedRoomIdsRef, composerFocusRef } = ui;

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      if (anyDialogOpen()) return; // dialogs handle their own keys
      const typing = isTypingTarget(event.target);
      const mod = event.ctrlKey || event.metaKey;
      let act: (() => void) | null = null;
      if (
        (event.altKey && !mod && !event.shiftKey && event.code === "KeyN") ||
        (event.ctrlKey && event.shiftKey && event.code === "KeyO")
      ) {
        act = ui.openCreateRoom;
      } else if (
        (mod && !event.altKey && event.code === "KeyK") ||
        (!typing && !mod && !event.altKey && event.key === "/")
      ) {
        act = () => {
          if (!isDesktop) setDrawerOpen(true);
          filterRef.current?.focus();
          filterRef.current?.select();
        };
      } else if (event.altKey && !mod && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
        // The sidebar's order under its filter; all rooms when the filter matches none.
        const listed = listedRoomIdsRef.current;
        const ids = listed?.length ? listed : (roomsRef.current ?? []).map((r) => r.id);
        if (ids.length === 0) return;
        act = () => {
          // The room this press starts from: the route's, or the one the last
          // press went to when the route has not re-rendered yet (two quick presses).
          const next = stepRoom(ids, openRoomIdRef.current ?? "", event.key === "ArrowDown");
          openRoomIdRef.current = next;
          navigate(roomPath(next));
        };
      } else if (event.key === "Escape" && event.shiftKey) {
        act = () => composerFocusRef.current?.();
      } else if (event.key === "Escape" && drawerOpen && !isDesktop) {
        act = () => setDrawerOpen(false);
      } else if (!typing && !mod && event.key === "?") {
        act = ui.openShortcuts;
      }
      if (!act) return;
      event.preventDefault();
      act();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [ui, drawerOpen, isDesktop, navigate, setDrawerOpen, filterRef, listedRoomIdsRef, composerFocusRef]);
}
