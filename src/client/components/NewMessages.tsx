/**
 * "N new messages": a divider before the first message that was new when
 * the room opened, and a bar above the transcript, while that message is
 * off screen, with a button to jump to it (see hooks/use-unread.ts).
 */
import { ArrowUp, X } from "lucide-react";
import type { RefObject } from "react";
import type { NewMessagesStart } from "@/client/hooks/use-unread";
import type { MessageListHandle } from "./transcript/transcript-handle";
import { IconButton } from "./ui/Button";

const label = (count: number) => `${count} new ${count === 1 ? "message" : "messages"}`;

/** In the transcript, before the first new message. */
export function NewMessagesDivider({ count }: { count: number }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: an <hr> cannot hold the visible label
    <div
      role="separator"
      aria-label={label(count)}
      data-new-messages-divider
      className="flex items-center gap-3 px-4 pt-4 pb-1 text-xs font-semibold text-accent-fg sm:px-6"
    >
      <span className="h-px flex-1 bg-accent-rule" />
      <span>{label(count)}</span>
      <span className="h-px flex-1 bg-accent-rule" />
    </div>
  );
}

/**
 * Above the transcript while the first new message is out of view. Jumping
 * scrolls to it when it is loaded, else opens the room at it (the deep link
 * view loads history around any message).
 */
export function NewMessagesBar({
  start,
  transcript,
  onJumpFar,
  onDismiss,
  onCatchUp
}: {
  start: NewMessagesStart;
  transcript: RefObject<MessageListHandle | null>;
  onJumpFar: (messageId: string) => void;
  onDismiss: () => void;
  /** Asks for a summary of what is new, for me alone (catch-up/CatchUpPanel.tsx). */
  onCatchUp?: () => void;
}) {
  const jump = () => {
    const list = transcript.current;
    if (!list?.showMessage(start.messageId)) return onJumpFar(start.messageId);
    // The bar goes once the message shows: keep focus in the transcript, not on the page.
    list.focus();
    onDismiss();
  };
  return (
    <div className="pointer-events-none absolute inset-x-0 top-2 z-10 flex justify-center px-4">
      <div className="pointer-events-auto flex items-center gap-1 rounded-full bg-accent-fill py-0.5 pr-0.5 pl-1 text-sm font-medium text-on-fill shadow-lg">
        <button
          type="button"
          onClick={jump}
          aria-label={`${label(start.count)}: jump to the first`}
          className="inline-flex h-8 cursor-pointer items-center gap-1.5 rounded-full px-3 pointer-coarse:h-11 hover:bg-accent-fill-hover focus-visible:outline-2 focus-visible:outline-on-fill"
        >
          <ArrowUp className="size-4" aria-hidden="true" />
          {label(start.count)}
        </button>
        {onCatchUp && (
          <button
            type="button"
            onClick={onCatchUp}
            className="inline-flex h-8 cursor-pointer items-center rounded-full px-3 pointer-coarse:h-11 hover:bg-accent-fill-hover focus-visible:outline-2 focus-visible:outline-on-fill"
          >
            Catch me up
          </button>
        )}
        <IconButton
          label="Dismiss new messages"
          size="sm"
          onClick={() => {
            transcript.current?.focus();
            onDismiss();
          }}
          className="text-on-fill hover:bg-accent-fill-hover hover:text-on-fill"
        >
          <X />
        </IconButton>
      </div>
    </div>
  );
}
