/**
 * The pages of history around one message (`?m=`), from REST, however far
 * back it is: the page around it first, then older or newer pages on
 * request, one at a time. An older page keeps what the reader was looking
 * at in place.
 */
import { type RefObject, useEffect, useState } from "react";
import { type ApiError, api, errorMessage } from "@/client/lib/api";
import { fromChatMessage, type RoomMessage } from "@/client/lib/messages";

const PAGE = 50;

export interface JumpPages {
  messages: RoomMessage[];
  olderCursor: string | null;
  newerCursor: string | null;
}

export function useJumpPages(roomId: string, messageId: string, scrollRef: RefObject<HTMLElement | null>) {
  const [loaded, setLoaded] = useState<JumpPages | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<"older" | "newer" | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    setLoaded(null);
    setError(null);
    api.listMessages(roomId, { around: messageId, limit: PAGE }, abort.signal).then(
      (page) =>
        setLoaded({
          messages: page.messages.map(fromChatMessage),
          olderCursor: page.nextCursor,
          newerCursor: page.newerCursor ?? null
        }),
      (e: unknown) => {
        if (abort.signal.aborted) return;
        setError(
          (e as ApiError).status === 404
            ? "That message is not in this room (it may have been removed)."
            : errorMessage(e)
        );
      }
    );
    return () => abort.abort();
  }, [roomId, messageId]);

  const loadOlder = async () => {
    if (!loaded?.olderCursor || busy) return;
    setBusy("older");
    const el = scrollRef.current;
    const fromBottom = el ? el.scrollHeight - el.scrollTop : 0;
    try {
      const page = await api.listMessages(roomId, { before: loaded.olderCursor, limit: PAGE });
      setLoaded(
        (l) =>
          l && { ...l, messages: [...page.messages.map(fromChatMessage), ...l.messages], olderCursor: page.nextCursor }
      );
      // Keep what the reader was looking at in place.
      requestAnimationFrame(() => {
        if (el) el.scrollTop = el.scrollHeight - fromBottom;
      });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };

  const loadNewer = async () => {
    if (!loaded?.newerCursor || busy) return;
    setBusy("newer");
    try {
      const page = await api.listMessages(roomId, { after: loaded.newerCursor, limit: PAGE });
      setLoaded(
        (l) =>
          l && {
            ...l,
            messages: [...l.messages, ...page.messages.map(fromChatMessage)],
            newerCursor: page.newerCursor ?? null
          }
      );
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };

  return { loaded, error, busy, loadOlder, loadNewer };
}
