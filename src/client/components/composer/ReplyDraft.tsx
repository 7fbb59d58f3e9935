/**
 * "Replying to Ann: …" above the composer while a reply is being written
 * (hooks/use-reply-draft.ts), with × to cancel it (Escape cancels it too,
 * room/RoomConversation.tsx). Announced politely when it appears, so a
 * screen reader says what the next send replies to.
 */
import { X } from "lucide-react";
import { QuoteLine } from "@/client/components/transcript/ReplyChip";
import { IconButton } from "@/client/components/ui/Button";
import type { ReplyRef } from "@/shared/replies";

export function ReplyDraftChip({ quote, onCancel }: { quote: ReplyRef; onCancel: () => void }) {
  return (
    <div className="shrink-0 px-3 sm:px-6">
      <div
        role="status"
        data-reply-draft={quote.id}
        className="mx-auto flex w-full max-w-3xl min-w-0 items-center gap-1 rounded-t-xl border border-b-0 border-edge-strong bg-surface-sunken py-0.5 pr-1 pl-3 text-xs text-fg-muted"
      >
        <QuoteLine quote={quote} lead="Replying to" />
        <IconButton size="sm" label={`Cancel the reply to ${quote.name}`} onClick={onCancel} className="ml-auto">
          <X />
        </IconButton>
      </div>
    </div>
  );
}
