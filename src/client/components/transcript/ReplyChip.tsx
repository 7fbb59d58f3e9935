/**
 * Quote chips, one look for both kinds of reply:
 * - on an answer, "Replying to Bob: …": which question it answers (its
 *   `answers` metadata, written by the server), so two answers in a row are
 *   never read as one;
 * - on a person's reply, "↩ Ann: …": the message they replied to (the
 *   server's quote in `metadata.replyTo`, shared/replies.ts);
 * and the Reply action that starts one (hooks/use-reply-draft.ts). A chip
 * scrolls to and highlights its message when the live transcript holds it,
 * and otherwise opens the room at that message (`?m=`). Quotes are text,
 * never HTML. The transcript's messages are looked up through a stable
 * function, so a streamed token re-renders no chip.
 */
import { CornerUpLeft, Reply } from "lucide-react";
import { createContext, type MouseEvent, useContext } from "react";
import { Link } from "react-router";
import { IconButton } from "@/client/components/ui/Button";
import type { RoomMessage } from "@/client/lib/messages";
import { quoteText, type ReplyRef, replyRefOf } from "@/shared/replies";

/** Finds a loaded message of the transcript by id, with the one before it (RoomConversation provides it). */
export const MessageLookupContext = createContext<
  ((id: string) => { message: RoomMessage; previous: RoomMessage | undefined } | undefined) | null
>(null);

/** What the room's transcript offers around replies (absent where nobody can reply, e.g. a share link). */
export interface ReplyActions {
  /** Starts a reply to this message: its quote goes above the composer. */
  reply(quote: ReplyRef): void;
  /** Scrolls the live transcript to a loaded message and highlights it; false when it is not loaded. */
  show(messageId: string): boolean;
}

export const ReplyActionsContext = createContext<ReplyActions | null>(null);

/** Characters of a quote a chip shows (the line is cut to its width too). */
const CHIP_QUOTE_LENGTH = 80;

/** "Replying to Ann: first words…" or "Ann: first words…", on one line. */
export function QuoteLine({ quote, lead }: { quote: ReplyRef; lead?: string }) {
  const text = quoteText(quote.text, CHIP_QUOTE_LENGTH);
  return (
    <>
      <CornerUpLeft className="size-3 shrink-0" aria-hidden="true" />
      <span className="min-w-0 truncate">
        {lead ? `${lead} ` : <span className="sr-only">In reply to </span>}
        <span className="font-medium">{quote.name}</span>
        {text && `: ${text}`}
      </span>
    </>
  );
}

const CHIP_CLASS =
  "mb-0.5 flex max-w-full min-w-0 items-center gap-1 text-xs text-fg-muted hover:text-fg pointer-coarse:min-h-11";

/** A chip naming the message `quote` quotes; a link to it where the room can show it. */
export function QuoteChip({ quote, lead }: { quote: ReplyRef; lead?: string }) {
  const actions = useContext(ReplyActionsContext);
  if (!actions) {
    return (
      <p data-reply-to={quote.id} className={CHIP_CLASS}>
        <QuoteLine quote={quote} lead={lead} />
      </p>
    );
  }
  const onClick = (event: MouseEvent) => {
    // A new tab or window gets the link; a plain click stays in the live room when it can.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (actions.show(quote.id)) event.preventDefault();
  };
  return (
    <Link
      to={{ search: `?m=${encodeURIComponent(quote.id)}` }}
      onClick={onClick}
      data-reply-to={quote.id}
      title={`Show ${quote.name}'s message`}
      className={CHIP_CLASS}
    >
      <QuoteLine quote={quote} lead={lead} />
    </Link>
  );
}

/**
 * "Replying to Bob: …" on an answer: the question it answers, when the
 * transcript holds it and something else stands between them (an answer
 * right under its question needs no chip, and repeating the question there
 * is noise).
 */
export function ReplyChip({ answerId, questionId }: { answerId: string; questionId: string | undefined }) {
  const lookup = useContext(MessageLookupContext);
  if (!questionId || !lookup) return null;
  const question = lookup(questionId)?.message;
  if (!question || question.role !== "user") return null;
  if (lookup(answerId)?.previous?.id === questionId) return null;
  return <QuoteChip quote={replyRefOf(question)} lead="Replying to" />;
}

/** A message's "Reply" action: its quote goes above the composer, and the next send replies to it. */
export function ReplyButton({ message }: { message: RoomMessage }) {
  const actions = useContext(ReplyActionsContext);
  if (!actions) return null;
  return (
    <IconButton size="sm" label="Reply" onClick={() => actions.reply(replyRefOf(message))}>
      <Reply />
    </IconButton>
  );
}
