import { createContext, type RefObject, useContext } from "react";

export interface AppUI {
  openCreateRoom(): void;
  openShortcuts(): void;
  openDisplayName(): void;
  /** Sidebar as a drawer (narrow screens). */
  drawerOpen: boolean;
  setDrawerOpen(open: boolean): void;
  isDesktop: boolean;
  filterRef: RefObject<HTMLInputElement | null>;
  /** The sidebar's title, focused when the drawer opens. */
  sidebarHeadingRef: RefObject<HTMLParagraphElement | null>;
  /** The rooms the sidebar lists, in its order and under its filter (Alt+↑/↓ step through these). */
  listedRoomIdsRef: RefObject<string[] | null>;
  /** The open room registers how to focus its composer (Shift+Esc). */
  composerFocusRef: RefObject<(() => void) | null>;
}

export const AppUIContext = createContext<AppUI | null>(null);

export function useAppUI(): AppUI {
  const value = useContext(AppUIContext);
  if (!value) throw new Error("useAppUI must be used inside <App>");
  return value;
}
