/**
 * The composer's parts around its text box: who is typing above it; Stop
 * and Send beside it; below it, why messages wait (offline) or the Enter
 * hint, "Ask the panel", and the length counter near the limit.
 */
import { ArrowUp, Square, Users, WifiOff } from "lucide-react";
import { Spinner } from "@/client/components/ui/Spinner";
import { cn } from "@/client/lib/cn";
import { MAX_MESSAGE_LENGTH } from "@/shared/constants";
import type { PresenceUser } from "@/shared/protocol";

function typingLabel(users: PresenceUser[]): string | null {
  const names = [...new Set(users.map((u) => u.name))];
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return `${names[0]}, ${names[1]} and ${names.length - 2} more are typing…`;
}

export function TypingLine({ users }: { users: PresenceUser[] }) {
  const typing = typingLabel(users);
  return (
    <div className="flex h-6 items-center px-1 text-xs text-fg-subtle">
      {typing && (
        <span className="flex min-w-0 items-center gap-1.5 animate-fade-in">
          <span className="inline-flex gap-[3px]" aria-hidden="true">
            <span className="typing-dot size-1 rounded-full bg-current" />
            <span className="typing-dot size-1 rounded-full bg-current" />
            <span className="typing-dot size-1 rounded-full bg-current" />
          </span>
          <span className="truncate">{typing}</span>
        </span>
      )}
    </div>
  );
}

export function ComposerHint({
  id,
  offlineReason,
  connecting,
  onReconnect,
  coarsePointer,
  length,
  canSend,
  onAskPanel
}: {
  id: string;
  offlineReason: string | null;
  connecting: boolean;
  onReconnect?: () => void;
  coarsePointer: boolean;
  length: number;
  canSend: boolean;
  onAskPanel?: () => void;
}) {
  const tooLong = length > MAX_MESSAGE_LENGTH;
  return (
    <div id={id} className="flex min-h-6 items-center gap-2 px-1 pt-1.5 text-xs text-fg-muted">
      {offlineReason ? (
        <span className="flex items-center gap-1.5 font-medium text-warning">
          {connecting ? <Spinner className="[&_svg]:size-3" /> : <WifiOff className="size-3.5" aria-hidden="true" />}
          {offlineReason}
          {onReconnect && (
            <button
              type="button"
              onClick={onReconnect}
              className="ml-1 cursor-pointer rounded-md px-1.5 py-0.5 pointer-coarse:min-h-11 font-semibold text-accent-fg underline hover:bg-accent-bg"
            >
              Reconnect now
            </button>
          )}
        </span>
      ) : coarsePointer ? null : (
        <span className="hidden sm:inline">
          <b className="font-medium">Enter</b> to send, <b className="font-medium">Shift + Enter</b> for a new line
        </span>
      )}
      {onAskPanel && (
        // Looks like the button it is: bordered, full strength. With nothing
        // written it says why it does nothing yet rather than fading out.
        <button
          type="button"
          aria-disabled={!canSend || undefined}
          title={canSend ? "Send this to every persona of the room" : "Write a question first"}
          onClick={() => canSend && onAskPanel()}
          className="ml-auto inline-flex cursor-pointer items-center gap-1.5 rounded-lg border border-edge-strong bg-surface px-2.5 py-1 pointer-coarse:min-h-11 font-medium text-accent-fg shadow-xs hover:bg-accent-bg aria-disabled:cursor-default aria-disabled:hover:bg-surface"
        >
          <Users className="size-3.5" aria-hidden="true" />
          Ask the panel
        </button>
      )}
      {length > MAX_MESSAGE_LENGTH * 0.9 && (
        <span className={cn("ml-auto tabular-nums", tooLong && "font-medium text-danger")}>
          {length.toLocaleString()} / {MAX_MESSAGE_LENGTH.toLocaleString()}
        </span>
      )}
    </div>
  );
}

export function SendButtons({
  busy,
  onStop,
  canSend,
  coarsePointer
}: {
  busy: boolean;
  onStop: () => void;
  canSend: boolean;
  coarsePointer: boolean;
}) {
  return (
    <>
      {busy && (
        <button
          type="button"
          onClick={onStop}
          aria-label="Stop generating"
          title="Stop generating"
          className="inline-flex size-11 shrink-0 cursor-pointer items-center justify-center rounded-xl bg-fg text-surface transition-colors hover:bg-inverse-hover"
        >
          <Square className="size-3.5 fill-current" aria-hidden="true" />
        </button>
      )}
      <button
        type="submit"
        disabled={!canSend}
        aria-label="Send message"
        title={coarsePointer ? "Send message" : "Send message (Enter)"}
        className="inline-flex size-11 shrink-0 cursor-pointer items-center justify-center rounded-xl bg-accent text-on-fill transition-colors hover:bg-accent-line disabled:cursor-not-allowed disabled:bg-edge disabled:text-fg-muted"
      >
        <ArrowUp className="size-5" aria-hidden="true" />
      </button>
    </>
  );
}
