/**
 * A person's message: the message it replies to (a quote chip, transcript/ReplyChip.tsx),
 * its text (plain, never HTML), its files, and whether its author withdrew it from the AI's queue.
 */
import { MessageFiles } from "@/client/components/files/MessageFiles";
import { PlainText } from "@/client/components/MessageText";
import type { RoomMessage } from "@/client/lib/messages";
import { QuoteChip } from "./ReplyChip";

export function QuestionBody({ message, text }: { message: RoomMessage; text: string }) {
  const replyTo = message.metadata?.replyTo;
  return (
    <>
      {replyTo && <QuoteChip quote={replyTo} />}
      {text && <PlainText text={text} />}
      <MessageFiles message={message} />
      {message.metadata?.aside && (
        <p data-shared-aside className="mt-0.5 text-xs text-fg-soft">
          Asked privately, then shared to the room with its answer.
        </p>
      )}
      {message.metadata?.withdrawn && (
        <p data-withdrawn className="mt-0.5 text-xs text-fg-soft">
          Withdrawn from the AI's queue before an answer; the AI does not see it.
        </p>
      )}
    </>
  );
}
