/**
 * A room opened at one message (`/sub/chat-room/<id>?m=<messageId>`): loads
 * the page of history around it from REST, however far back it is, scrolls
 * to it and highlights it. Older and newer pages load on request; "Back to
 * latest" returns to the live conversation.
 */
import { ArrowDown, ArrowUp, CornerDownLeft } from "lucide-react";
import { useEffect, useLayoutEffect, useRef } from "react";
import { useJumpPages } from "@/client/hooks/use-jump-pages";
import { cn } from "@/client/lib/cn";
import type { RoomMessage } from "@/client/lib/messages";
import { MessageItem } from "./MessageItem";
import { Button } from "./ui/Button";
import { ErrorNotice } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

const noop = () => {};

/** Loads the page before or after what is shown; one page loads at a time. */
function PageButton({
  page,
  busy,
  onClick
}: {
  page: "older" | "newer";
  busy: "older" | "newer" | null;
  onClick: () => void;
}) {
  const Arrow = page === "older" ? ArrowUp : ArrowDown;
  return (
    <div className="flex justify-center py-3">
      <Button size="sm" variant="secondary" onClick={onClick} disabled={busy !== null}>
        {busy === page ? <Spinner className="size-3.5" /> : <Arrow className="size-3.5" aria-hidden="true" />}
        {page === "older" ? "Load older messages" : "Load newer messages"}
      </Button>
    </div>
  );
}

/** A message of the linked page; the linked one highlighted, focusable and, when asked, open at a version. */
function JumpRow({
  message,
  target,
  targetRef,
  openVersion,
  actions
}: {
  message: RoomMessage;
  target: boolean;
  targetRef: React.RefObject<HTMLDivElement | null>;
  openVersion?: number;
  actions: React.ReactNode;
}) {
  return (
    <div
      ref={target ? targetRef : undefined}
      data-jump-target={target || undefined}
      aria-current={target || undefined}
      tabIndex={target ? -1 : undefined}
      className={cn(
        "relative outline-none",
        target && "jump-highlight rounded-lg bg-warning-bg ring-2 ring-highlight-ring"
      )}
    >
      <MessageItem
        message={message}
        grouped={false}
        streaming={false}
        canRegenerate={false}
        canEdit={false}
        onRegenerate={noop}
        onEdit={noop}
        openVersion={target ? openVersion : undefined}
      />
      {actions}
    </div>
  );
}

export function JumpView({
  roomId,
  messageId,
  onLeave,
  renderActions,
  keepFocus = false,
  openVersion
}: {
  roomId: string;
  messageId: string;
  onLeave: () => void;
  /** Leave focus where it is (find in room keeps it in its box) instead of moving it to the message. */
  keepFocus?: boolean;
  /** Extra per-message actions (e.g. fork), when the viewer may take them. */
  renderActions?: (message: RoomMessage) => React.ReactNode;
  /** Open the linked message's versions at this earlier one (where someone's message went). */
  openVersion?: number;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const scrolledTo = useRef<string | null>(null);
  const targetRef = useRef<HTMLDivElement>(null);
  const { loaded, error, busy, loadOlder, loadNewer } = useJumpPages(roomId, messageId, scrollRef);

  // Scroll the target into view once, when its page arrives.
  useLayoutEffect(() => {
    if (!loaded || scrolledTo.current === messageId) return;
    const row = targetRef.current;
    if (!row) return;
    scrolledTo.current = messageId;
    row.scrollIntoView({ block: "center" });
    if (!keepFocus) row.focus({ preventScroll: true });
  }, [loaded, messageId, keepFocus]);
  // Another message: scroll to it once its own page is here too.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the message is the trigger
  useEffect(() => {
    scrolledTo.current = null;
  }, [roomId, messageId]);

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div
        role="status"
        className="flex shrink-0 items-center gap-2 border-b border-accent-edge bg-accent-bg px-4 py-1.5 text-xs text-accent-ink"
      >
        <span className="min-w-0 flex-1">You are reading this room at a linked message.</span>
        <Button size="sm" variant="secondary" onClick={onLeave}>
          <CornerDownLeft className="size-3.5" aria-hidden="true" />
          Back to latest
        </Button>
      </div>
      <section
        ref={scrollRef}
        className="thin-scrollbar min-h-0 flex-1 overflow-y-auto"
        aria-label="Messages around the link"
      >
        {error && (
          <ErrorNotice variant="inline" className="mx-auto max-w-3xl px-6 py-6">
            {error}
          </ErrorNotice>
        )}
        {!loaded && !error && (
          <div className="flex justify-center py-10">
            <Spinner label="Loading the linked message" />
          </div>
        )}
        {loaded && (
          <div className="mx-auto w-full max-w-3xl pb-6">
            {loaded.olderCursor && <PageButton page="older" busy={busy} onClick={loadOlder} />}
            {loaded.messages.map((message) => (
              <JumpRow
                key={message.id}
                message={message}
                target={message.id === messageId}
                targetRef={targetRef}
                openVersion={openVersion}
                actions={renderActions?.(message)}
              />
            ))}
            {loaded.newerCursor && <PageButton page="newer" busy={busy} onClick={loadNewer} />}
          </div>
        )}
      </section>
    </div>
  );
}
