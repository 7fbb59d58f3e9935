/**
 * A person's message: the message it replies to (a quote chip, transcript/ReplyChip.tsx),
 * its text (plain, never HTML) and its files.
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
    </>
  );
}
