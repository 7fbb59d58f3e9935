/**
 * The reply being written in a room: which message the next send replies
 * to (its quote sits above the composer until the send or a cancel), and
 * what the transcript's Reply actions and quote chips call
 * (transcript/ReplyChip.tsx). Kept per room: opening another room starts
 * without one. The actions are stable per room, so starting a reply
 * re-renders no message.
 */
import { type RefObject, useCallback, useMemo, useState } from "react";
import type { ComposerHandle } from "@/client/components/Composer";
import type { ReplyActions } from "@/client/components/transcript/ReplyChip";
import type { MessageListHandle } from "@/client/components/transcript/transcript-handle";
import type { ReplyRef } from "@/shared/replies";

export interface ReplyDraft {
  /** The message the next send replies to, or null. */
  quote: ReplyRef | null;
  cancel(): void;
  actions: ReplyActions;
}

export function useReplyDraft(
  roomId: string,
  transcriptRef: RefObject<MessageListHandle | null>,
  composerRef: RefObject<ComposerHandle | null>
): ReplyDraft {
  const [draft, setDraft] = useState<{ roomId: string; quote: ReplyRef } | null>(null);
  const actions = useMemo<ReplyActions>(
    () => ({
      reply: (quote) => {
        setDraft({ roomId, quote });
        composerRef.current?.focus();
      },
      show: (messageId) => transcriptRef.current?.showMessage(messageId, { highlight: true }) ?? false
    }),
    [roomId, transcriptRef, composerRef]
  );
  const cancel = useCallback(() => setDraft(null), []);
  return { quote: draft?.roomId === roomId ? draft.quote : null, cancel, actions };
}
