/**
 * "Replying to Bob: …" on an answer: which question it answers (its
 * `answers` metadata, written by the server), so two answers in a row are
 * never read as one, and a link that opens the room at that question.
 * The transcript's messages are looked up through a stable function, so a
 * streamed token re-renders no chip.
 */
import { CornerUpLeft } from "lucide-react";
import { createContext, useContext } from "react";
import { Link } from "react-router";
import { messageText, type RoomMessage } from "@/client/lib/messages";
import { authorName } from "@/shared/identity";

/** Finds a loaded message of the transcript by id (RoomConversation provides it). */
export const MessageLookupContext = createContext<((id: string) => RoomMessage | undefined) | null>(null);

const EXCERPT_LENGTH = 80;

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > EXCERPT_LENGTH ? `${line.slice(0, EXCERPT_LENGTH - 1)}…` : line;
}

export function ReplyChip({ questionId }: { questionId: string | undefined }) {
  const lookup = useContext(MessageLookupContext);
  if (!questionId || !lookup) return null;
  const question = lookup(questionId);
  if (!question || question.role !== "user") return null;
  const who = authorName(question.metadata?.author) ?? "Someone";
  const text = excerpt(messageText(question));
  return (
    <Link
      to={{ search: `?m=${encodeURIComponent(questionId)}` }}
      data-reply-to={questionId}
      title={`Show ${who}'s question`}
      className="mb-0.5 flex max-w-full min-w-0 items-center gap-1 text-xs text-fg-muted hover:text-fg pointer-coarse:min-h-11"
    >
      <CornerUpLeft className="size-3 shrink-0" aria-hidden="true" />
      <span className="min-w-0 truncate">
        Replying to <span className="font-medium">{who}</span>: {text}
      </span>
    </Link>
  );
}
