/**
 * Ctrl+F (⌘F) opens find in room: the transcript is virtual, so the
 * browser's own find would see only the few messages in the page. Returns
 * a counter bumped on each press (0: closed) and its setter; a new room
 * closes find.
 */
import { useEffect, useState } from "react";

export function useFindShortcut(roomId: string) {
  const [finding, setFinding] = useState(0);
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
  return [finding, setFinding] as const;
}
