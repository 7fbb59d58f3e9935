/** The reader's own messages that just moved to an earlier version (lib/versions.ts), until dismissed. */
import { useCallback, useEffect, useState } from "react";
import type { RoomMessage } from "@/client/lib/messages";
import { type MovedMessages, MovedMessagesTracker } from "@/client/lib/version-moves";

export function useMovedMessages(messages: RoomMessage[], selfId: string) {
  const [tracker] = useState(() => new MovedMessagesTracker(selfId));
  const [moved, setMoved] = useState<MovedMessages | null>(null);
  useEffect(() => {
    const found = tracker.update(messages);
    if (found) setMoved(found);
  }, [tracker, messages]);
  const dismiss = useCallback(() => setMoved(null), []);
  return { moved, dismiss };
}
