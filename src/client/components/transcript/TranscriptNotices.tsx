/**
 * What sits under the last message: "Thinking…" while an answer has not
 * started, and notices for a failed answer, a refusal from the room or a
 * failed action, each with its way out (Retry, Dismiss).
 */
import { AlertTriangle, RotateCcw } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { Alert } from "@/client/components/ui/Alert";
import { AssistantAvatar } from "@/client/components/ui/Avatar";
import { Button } from "@/client/components/ui/Button";
import { TypingDots } from "@/client/components/ui/Spinner";
import type { RoomChat } from "@/client/hooks/use-chat-room";
import { cn } from "@/client/lib/cn";
import { messageText } from "@/client/lib/messages";
import type { MovedMessages } from "@/client/lib/version-moves";

/**
 * A notice under the transcript, aligned with the messages' text, with an
 * action or a Dismiss button. No role: the room's status region
 * (LiveAnnouncer) already speaks for these.
 */
function RoomNotice({
  tone,
  role,
  action,
  onDismiss,
  className,
  children
}: {
  tone: "error" | "warning" | "info";
  /** Speaks for itself (the room's status region does not know of it). */
  role?: "status";
  action?: ReactNode;
  onDismiss?: () => void;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="px-4 pt-2 sm:px-6">
      <Alert
        tone={tone}
        role={role}
        silent={!role}
        icon={<AlertTriangle className="size-4 shrink-0" aria-hidden="true" />}
        action={
          onDismiss ? (
            <Button size="sm" variant="ghost" onClick={onDismiss}>
              Dismiss
            </Button>
          ) : (
            action
          )
        }
        className={cn("ml-11 items-center gap-3", className)}
      >
        {children}
      </Alert>
    </div>
  );
}

/** An answer was asked for and has not started streaming yet. */
export function isWaitingForAnswer(chat: RoomChat): boolean {
  return (
    (chat.status === "submitted" || chat.isStreaming || chat.isRecovering) && chat.messages.at(-1)?.role !== "assistant"
  );
}

/** "Your message moved to version 1 when Ann edited her message", with a link to it there. */
function MovedNotice({ moved, onDismiss }: { moved: MovedMessages; onDismiss: () => void }) {
  const first = messageText(moved.mine[0]).trim();
  const what =
    moved.mine.length === 1
      ? `Your message “${first.length > 60 ? `${first.slice(0, 60)}…` : first}”`
      : `Your ${moved.mine.length} messages`;
  const cause = moved.by ? `${moved.by} edited a message before it` : "the answer before it was regenerated";
  return (
    <RoomNotice tone="info" role="status" onDismiss={onDismiss}>
      <span data-moved-notice>
        {what} moved to version {moved.version} when {cause}. Nothing is lost:{" "}
        <Link className="font-medium text-accent-fg underline" to={`?m=${moved.messageId}&v=${moved.version}`}>
          show version {moved.version}
        </Link>
        .
      </span>
    </RoomNotice>
  );
}

export function TranscriptNotices({
  chat,
  connected,
  moved,
  onDismissMoved
}: {
  chat: RoomChat;
  connected: boolean;
  moved: MovedMessages | null;
  onDismissMoved: () => void;
}) {
  const last = chat.messages.at(-1);
  const showStreamError =
    chat.error && chat.status === "error" && !(last?.role === "assistant" && last.metadata?.error);
  return (
    <>
      {isWaitingForAnswer(chat) && (
        <div role="status" className="flex gap-3 px-4 pt-3 pb-2 sm:px-6" aria-label="Assistant is thinking">
          <AssistantAvatar />
          <div className="flex h-8 items-center gap-2 text-sm text-fg-muted">
            <TypingDots className="text-fg-faint" />
            <span>{chat.isRecovering ? "Recovering the answer…" : "Thinking…"}</span>
          </div>
        </div>
      )}

      {showStreamError && (
        <RoomNotice
          tone="error"
          className="flex-wrap"
          action={
            connected && (
              <Button size="sm" onClick={chat.retry}>
                <RotateCcw className="size-3.5" aria-hidden="true" />
                Retry
              </Button>
            )
          }
        >
          {chat.error?.message || "The answer failed."}
        </RoomNotice>
      )}

      {chat.serverError && chat.serverError !== chat.error?.message && !chat.actionError && (
        <RoomNotice tone="warning" onDismiss={chat.clearServerError}>
          {chat.serverError}
        </RoomNotice>
      )}

      {moved && <MovedNotice moved={moved} onDismiss={onDismissMoved} />}

      {chat.actionError && (
        <RoomNotice tone="error" onDismiss={chat.dismissActionError}>
          {chat.actionError}
        </RoomNotice>
      )}
    </>
  );
}
