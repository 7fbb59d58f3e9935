/**
 * What sits under the last message: "Thinking…" while an answer has not
 * started, and notices for a failed answer, a refusal from the room or a
 * failed action, each with its way out (Retry, Dismiss).
 */
import { AlertTriangle, RotateCcw } from "lucide-react";
import type { ReactNode } from "react";
import { Alert } from "@/client/components/ui/Alert";
import { AssistantAvatar } from "@/client/components/ui/Avatar";
import { Button } from "@/client/components/ui/Button";
import { TypingDots } from "@/client/components/ui/Spinner";
import type { RoomChat } from "@/client/hooks/use-chat-room";
import { cn } from "@/client/lib/cn";

/**
 * A notice under the transcript, aligned with the messages' text, with an
 * action or a Dismiss button. No role: the room's status region
 * (LiveAnnouncer) already speaks for these.
 */
function RoomNotice({
  tone,
  action,
  onDismiss,
  className,
  children
}: {
  tone: "error" | "warning";
  action?: ReactNode;
  onDismiss?: () => void;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="px-4 pt-2 sm:px-6">
      <Alert
        tone={tone}
        silent
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

export function TranscriptNotices({ chat, connected }: { chat: RoomChat; connected: boolean }) {
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

      {chat.actionError && (
        <RoomNotice tone="error" onDismiss={chat.dismissActionError}>
          {chat.actionError}
        </RoomNotice>
      )}
    </>
  );
}
