/**
 * A message's actions. An answer's sit under it (Reply, Copy, Pin, Fork,
 * React, Regenerate, What the AI saw, Trace, its tokens and "Stopped by …"); a
 * question's float at its top right on hover or focus (inline on touch
 * screens): Reply, Copy, Pin, React, Fork, Edit.
 */
import { Pencil, RefreshCw, Square } from "lucide-react";
import { CopyButton } from "@/client/components/CopyButton";
import { AnswerContextButton } from "@/client/components/memory/AnswerContext";
import { PinMessageButton } from "@/client/components/memory/PinMessageButton";
import { TraceButton } from "@/client/components/TraceWaterfall";
import { ForkButton } from "@/client/components/Transfer";
import { IconButton } from "@/client/components/ui/Button";
import { cn } from "@/client/lib/cn";
import type { RoomMessage } from "@/client/lib/messages";
import { formatCount } from "@/client/lib/time";
import { authorName } from "@/shared/identity";
import { AddReactionButton } from "./MessageReactions";
import { ReplyButton } from "./ReplyChip";

export function AnswerActions({
  message,
  text,
  streaming,
  failed,
  canRegenerate,
  onRegenerate,
  onFork
}: {
  message: RoomMessage;
  text: string;
  streaming: boolean;
  failed: boolean;
  canRegenerate: boolean;
  onRegenerate: () => void;
  onFork?: (messageId: string) => void;
}) {
  const meta = message.metadata ?? {};
  return (
    <div className={cn("flex h-8 items-center gap-0.5 text-xs text-fg-muted", streaming && "invisible")}>
      {meta.stopped && (
        <span className="mr-1.5 inline-flex items-center gap-1 rounded-md bg-warning-bg px-1.5 py-0.5 font-medium text-warning ring-1 ring-warning-line ring-inset">
          <Square className="size-2.5 fill-current" aria-hidden="true" />
          {authorName(meta.stoppedBy) ? `Stopped by ${authorName(meta.stoppedBy)}` : "Stopped"}
        </span>
      )}
      <div
        className={cn(
          "flex items-center gap-0.5 transition-opacity",
          !canRegenerate &&
            "opacity-0 group-focus-within:opacity-100 group-hover:opacity-100 [@media(pointer:coarse)]:opacity-100"
        )}
      >
        <ReplyButton message={message} />
        {text && <CopyButton text={text} />}
        {text && <PinMessageButton messageId={message.id} />}
        <AddReactionButton messageId={message.id} />
        {onFork && <ForkButton onFork={() => onFork(message.id)} />}
        {canRegenerate && !failed && (
          <IconButton size="sm" label="Regenerate answer" onClick={onRegenerate}>
            <RefreshCw />
          </IconButton>
        )}
        {meta.traceId && <AnswerContextButton messageId={message.id} />}
        {meta.traceId && <TraceButton traceId={meta.traceId} />}
        {meta.usage && meta.usage.totalTokens > 0 && (
          <span className="ml-1.5 tabular-nums" title={`${meta.usage.inputTokens} in, ${meta.usage.outputTokens} out`}>
            {formatCount(meta.usage.totalTokens)} tokens
          </span>
        )}
      </div>
    </div>
  );
}

export function QuestionActions({
  message,
  text,
  canEdit,
  onEdit,
  onFork
}: {
  message: RoomMessage;
  text: string;
  canEdit: boolean;
  onEdit: () => void;
  onFork?: (messageId: string) => void;
}) {
  return (
    <>
      <div className="h-2" />
      <div className="absolute top-1 right-3 flex items-center gap-0.5 rounded-lg bg-surface p-0.5 opacity-0 shadow-sm ring-1 ring-edge-raised transition-opacity group-focus-within:opacity-100 group-hover:opacity-100 sm:right-5 [@media(pointer:coarse)]:static [@media(pointer:coarse)]:-mt-1 [@media(pointer:coarse)]:mb-1 [@media(pointer:coarse)]:justify-end [@media(pointer:coarse)]:bg-transparent [@media(pointer:coarse)]:opacity-100 [@media(pointer:coarse)]:shadow-none [@media(pointer:coarse)]:ring-0">
        <ReplyButton message={message} />
        {text && <CopyButton text={text} />}
        {text && <PinMessageButton messageId={message.id} />}
        <AddReactionButton messageId={message.id} />
        {onFork && <ForkButton onFork={() => onFork(message.id)} />}
        {canEdit && (
          <IconButton size="sm" label="Edit message" onClick={onEdit}>
            <Pencil />
          </IconButton>
        )}
      </div>
    </>
  );
}
