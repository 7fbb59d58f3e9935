/**
 * The transcript's edges: the band above the first row ("Load earlier
 * messages", or the start of the room), the empty room, and "Jump to
 * latest" over the bottom once the reader has scrolled up.
 */
import { ArrowDown, MessagesSquare } from "lucide-react";
import { Button } from "@/client/components/ui/Button";
import { Spinner } from "@/client/components/ui/Spinner";
import { cn } from "@/client/lib/cn";

export function TranscriptStart({
  roomName,
  reachedStart,
  loadingOlder,
  olderError,
  onLoadOlder
}: {
  roomName: string;
  reachedStart: boolean;
  loadingOlder: boolean;
  olderError: string | null;
  onLoadOlder: () => void;
}) {
  return (
    <div className="flex h-16 shrink-0 items-center justify-center px-4 text-sm text-fg-muted sm:px-6">
      {!reachedStart ? (
        olderError ? (
          <span className="flex items-center gap-2">
            <span className="text-danger">{olderError}</span>
            <Button size="sm" variant="ghost" onClick={onLoadOlder}>
              Try again
            </Button>
          </span>
        ) : (
          // One button, loading or not, so focus stays on it across a load. Not a
          // tab stop: the keyboard loads earlier messages with ↑ on the first one.
          <Button
            size="sm"
            variant="ghost"
            tabIndex={-1}
            data-load-older
            aria-disabled={loadingOlder || undefined}
            onClick={() => !loadingOlder && onLoadOlder()}
          >
            {loadingOlder ? (
              <>
                <Spinner /> Loading earlier messages…
              </>
            ) : (
              "Load earlier messages"
            )}
          </Button>
        )
      ) : (
        <div className="flex w-full items-center gap-3">
          <span className="h-px flex-1 bg-edge" />
          <span>
            This is the start of <span className="font-medium text-fg-3">{roomName}</span>
          </span>
          <span className="h-px flex-1 bg-edge" />
        </div>
      )}
    </div>
  );
}

export function EmptyTranscript() {
  return (
    <div className="m-auto flex max-w-sm flex-col items-center px-6 py-16 text-center">
      <div className="mb-4 flex size-12 items-center justify-center rounded-2xl bg-accent-bg text-accent-fg">
        <MessagesSquare className="size-6" aria-hidden="true" />
      </div>
      <h2 className="text-base font-semibold text-fg">No messages yet</h2>
      <p className="mt-1 text-sm text-fg-muted">
        Write the first message below. Everyone in this room sees the answer as it streams in.
      </p>
    </div>
  );
}

export function JumpToLatest({ hidden, onJump }: { hidden: boolean; onJump: () => void }) {
  return (
    <div
      className={cn(
        "pointer-events-none absolute inset-x-0 bottom-3 flex justify-center transition-all duration-200",
        hidden ? "translate-y-2 opacity-0" : "translate-y-0 opacity-100"
      )}
    >
      <button
        type="button"
        tabIndex={hidden ? -1 : 0}
        aria-hidden={hidden}
        onClick={onJump}
        className={cn(
          "inline-flex cursor-pointer items-center gap-1.5 rounded-full bg-surface-raised px-3.5 py-1.5 pointer-coarse:min-h-11 text-sm font-medium text-fg-control shadow-lg ring-1 ring-hairline hover:bg-surface-raised-hover",
          !hidden && "pointer-events-auto"
        )}
      >
        <ArrowDown className="size-4" aria-hidden="true" />
        Jump to latest
      </button>
    </div>
  );
}
