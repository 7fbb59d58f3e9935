/**
 * One message of the transcript (or of a linked page or an earlier
 * version): avatar, author line, body (Markdown for answers, plain text for
 * questions, or the edit form), a failed answer's reason, and its actions.
 * Memoised: a streamed token re-renders only the streaming message.
 */
import { AlertTriangle, RotateCcw } from "lucide-react";
import { memo, useState } from "react";
import { cn } from "@/client/lib/cn";
import { isGrouped } from "@/client/lib/message-grouping";
import { messageText, type RoomMessage } from "@/client/lib/messages";
import { countRender } from "@/client/lib/render-probe";
import { messageTime } from "@/client/lib/time";
import { authorName } from "@/shared/identity";
import { Citations } from "./files/MessageFiles";
import { AssistantBody } from "./transcript/AssistantBody";
import { EditForm } from "./transcript/EditForm";
import { AnswerActions, QuestionActions } from "./transcript/MessageActions";
import { MessageAvatar, MessageHeader } from "./transcript/MessageHeader";
import { MessageReactions } from "./transcript/MessageReactions";
import { QuestionBody } from "./transcript/QuestionBody";
import { Alert } from "./ui/Alert";
import { Button } from "./ui/Button";
import { VersionSwitcher } from "./VersionSwitcher";

export interface MessageItemProps {
  message: RoomMessage;
  /** Same author as the message before, shortly before: no avatar or name. */
  grouped: boolean;
  /** Tokens are arriving into this message right now. */
  streaming: boolean;
  /** Regenerate / Retry is offered (last answer, nothing running). */
  canRegenerate: boolean;
  canEdit: boolean;
  onRegenerate: () => void;
  onEdit: (messageId: string, text: string) => void;
  /** "Fork from here", when offered. */
  onFork?: (messageId: string) => void;
  /** Part of an earlier version shown inside another message: read-only, no versions of its own. */
  earlier?: boolean;
  /** Open this message's versions at this earlier one (a link to where someone's message went). */
  openVersion?: number;
  /** Says what an edit of this message does to the messages after it. */
  describeEdit?: (messageId: string) => string;
  /** This message is the transcript's one tab stop (hooks/use-message-focus.ts); false: focusable by arrows only. */
  tabStop?: boolean;
}

const noop = () => {};

/** An earlier version's messages, as the room showed them: authors, personas and Markdown, read-only. */
function EarlierMessages({ messages }: { messages: RoomMessage[] }) {
  return (
    <div>
      {messages.map((m, i) => (
        <MessageItem
          key={m.id}
          message={m}
          grouped={isGrouped(messages[i - 1], m)}
          streaming={false}
          canRegenerate={false}
          canEdit={false}
          onRegenerate={noop}
          onEdit={noop}
          earlier
        />
      ))}
    </div>
  );
}

function AnswerFailed({ error, canRetry, onRetry }: { error: string; canRetry: boolean; onRetry: () => void }) {
  return (
    <Alert
      tone="error"
      silent
      data-answer-error
      icon={<AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />}
      action={
        canRetry && (
          <Button size="sm" variant="secondary" onClick={onRetry} className="self-center">
            <RotateCcw className="size-3.5" aria-hidden="true" />
            Retry
          </Button>
        )
      }
      className="mt-1.5 flex-wrap items-start gap-x-3 gap-y-2"
    >
      <p className="font-medium">The answer failed</p>
      <p className="text-danger-strong">{error}</p>
    </Alert>
  );
}

export const MessageItem = memo(function MessageItem({
  message,
  grouped,
  streaming,
  canRegenerate,
  canEdit,
  onRegenerate,
  onEdit,
  onFork,
  earlier = false,
  openVersion,
  describeEdit,
  tabStop
}: MessageItemProps) {
  countRender(message.id);
  const [editing, setEditing] = useState(false);
  const meta = message.metadata ?? {};
  const isAssistant = message.role === "assistant";
  const persona = isAssistant ? meta.persona : undefined;
  const author = isAssistant ? (persona ? `@${persona.name}` : "Assistant") : authorName(meta.author) || "Someone";
  // Persona answers stream outside the chat hook's own turn (see persona-turns.ts).
  const personaPending = !!persona && !meta.usage && !meta.error && !meta.stopped;
  const text = messageText(message);
  const failed = isAssistant && typeof meta.error === "string";

  if (message.role === "system") return null;

  return (
    <article
      data-message-id={earlier ? undefined : message.id}
      data-earlier-message-id={earlier ? message.id : undefined}
      data-role={message.role}
      aria-label={`${author}${meta.createdAt ? `, ${messageTime(meta.createdAt, Date.now())}` : ""}`}
      aria-busy={streaming || undefined}
      tabIndex={tabStop === undefined ? undefined : tabStop ? 0 : -1}
      className={cn(
        "message-row group relative flex gap-3 px-4 transition-colors outline-none sm:px-6",
        "focus-visible:bg-row-hover focus-visible:ring-2 focus-visible:ring-accent-line focus-visible:ring-inset",
        grouped ? "pt-0.5" : "pt-3",
        "hover:bg-row-hover"
      )}
    >
      <div className="w-8 shrink-0 pt-0.5">{!grouped && <MessageAvatar message={message} author={author} />}</div>
      <div className="min-w-0 flex-1">
        {grouped ? <h2 className="sr-only">{author}</h2> : <MessageHeader message={message} author={author} />}

        {!earlier && (meta.version ?? 1) >= 2 && (
          <VersionSwitcher
            messageId={message.id}
            version={meta.version ?? 2}
            openVersion={openVersion}
            renderMessages={(messages) => <EarlierMessages messages={messages} />}
          />
        )}

        {editing ? (
          <EditForm
            initial={text}
            consequence={describeEdit?.(message.id)}
            onCancel={() => setEditing(false)}
            onSave={(next) => {
              setEditing(false);
              onEdit(message.id, next);
            }}
          />
        ) : isAssistant ? (
          <>
            <AssistantBody message={message} streaming={streaming || personaPending} />
            <Citations message={message} />
          </>
        ) : (
          <QuestionBody message={message} text={text} />
        )}

        {!earlier && <MessageReactions messageId={message.id} />}
        {failed && <AnswerFailed error={meta.error ?? ""} canRetry={canRegenerate} onRetry={onRegenerate} />}

        {!editing && !earlier && isAssistant && (
          <AnswerActions
            message={message}
            text={text}
            streaming={streaming}
            failed={failed}
            canRegenerate={canRegenerate}
            onRegenerate={onRegenerate}
            onFork={onFork}
          />
        )}
        {!editing && !earlier && !isAssistant && (
          <QuestionActions
            message={message}
            text={text}
            canEdit={canEdit}
            onEdit={() => setEditing(true)}
            onFork={onFork}
          />
        )}
      </div>
    </article>
  );
});
