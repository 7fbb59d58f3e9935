/**
 * The sidebar as a drawer on narrow screens: open and closed, closed by any
 * navigation, focus to its heading on open (not the filter, whose soft
 * keyboard would cover the list) and back to the opener on close.
 */
import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import { useLocation } from "react-router";

export function useDrawer(isDesktop: boolean, headingRef: RefObject<HTMLElement | null>) {
  const [drawerOpen, setDrawerOpenState] = useState(false);
  const drawerOpenerRef = useRef<HTMLElement | null>(null);
  const location = useLocation();

  const setDrawerOpen = useCallback((open: boolean) => {
    if (open) drawerOpenerRef.current = document.activeElement as HTMLElement | null;
    setDrawerOpenState(open);
  }, []);

  const wasOpen = useRef(false);
  useEffect(() => {
    if (isDesktop) return;
    if (drawerOpen) {
      requestAnimationFrame(() => headingRef.current?.focus({ preventScroll: true }));
    } else if (wasOpen.current) {
      const opener = drawerOpenerRef.current;
      if (opener?.isConnected) opener.focus();
    }
    wasOpen.current = drawerOpen;
  }, [drawerOpen, isDesktop, headingRef]);

  // Navigating closes the drawer.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is the trigger, not an input
  useEffect(() => {
    setDrawerOpenState(false);
  }, [location.pathname]);

  return [drawerOpen, setDrawerOpen] as const;
}
