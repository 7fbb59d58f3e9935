import { AlertTriangle, Pencil, RefreshCw, RotateCcw, Square } from "lucide-react";
import { type KeyboardEvent, memo, useEffect, useId, useRef, useState } from "react";
import { MAX_MESSAGE_LENGTH } from "../../shared/constants";
import { authorName } from "../../shared/identity";
import { cn } from "../lib/cn";
import { asToolPart, messageText, type RoomMessage } from "../lib/messages";
import { countRender } from "../lib/render-probe";
import { formatCount, fullDateTime, messageTime } from "../lib/time";
import { CopyButton } from "./CopyButton";
import { MessageText, PlainText } from "./MessageText";
import { PersonaAvatar, PersonaName } from "./personas/persona-colours";
import { ToolPart } from "./ToolPart";
import { TraceButton } from "./TraceWaterfall";
import { ForkButton } from "./Transfer";
import { TaskCard } from "./tasks/TaskCard";
import { Alert } from "./ui/Alert";
import { AssistantAvatar, Avatar } from "./ui/Avatar";
import { Button, IconButton } from "./ui/Button";
import { TypingDots } from "./ui/Spinner";
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
}

function AssistantBody({ message, streaming }: { message: RoomMessage; streaming: boolean }) {
  const parts = message.parts;
  let lastTextIndex = -1;
  parts.forEach((p, i) => {
    if (p.type === "text") lastTextIndex = i;
  });
  const hasVisible = parts.some((p) => (p.type === "text" && p.text) || asToolPart(p) || p.type === "reasoning");
  return (
    <div className="min-w-0 text-[15px] leading-7">
      {parts.map((part, index) => {
        if (part.type === "text") {
          if (!part.text) return null;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts have no ids, and a message's parts are only ever appended
            <MessageText key={index} text={part.text} streaming={streaming && index === lastTextIndex} />
          );
        }
        if (part.type === "reasoning") {
          if (!part.text) return null;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts have no ids, and a message's parts are only ever appended
            <details key={index} className="my-2 text-sm text-fg-muted">
              <summary className="cursor-pointer select-none hover:text-fg-3">Reasoning</summary>
              <div className="mt-1 border-l-2 border-edge-raised pl-3 whitespace-pre-wrap">{part.text}</div>
            </details>
          );
        }
        const tool = asToolPart(part);
        if (tool?.name === "delegate") return <TaskCard key={tool.toolCallId || index} tool={tool} />;
        if (tool) return <ToolPart key={tool.toolCallId || index} tool={tool} />;
        return null;
      })}
      {streaming && !hasVisible && (
        <div role="status" className="flex h-7 items-center text-fg-muted" aria-label="Assistant is thinking">
          <TypingDots />
        </div>
      )}
    </div>
  );
}

function EditForm({
  initial,
  onCancel,
  onSave
}: {
  initial: string;
  onCancel: () => void;
  onSave: (text: string) => void;
}) {
  const [text, setText] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text is the trigger; the height is read from the DOM
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [text]);
  const trimmed = text.trim();
  const valid = trimmed.length > 0 && text.length <= MAX_MESSAGE_LENGTH;
  const submit = () => valid && onSave(text);
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
    }
  };
  return (
    <form
      className="mt-1 rounded-xl border border-edge-strong bg-surface p-2 shadow-sm focus-within:border-accent-line focus-within:ring-3 focus-within:ring-accent-line/20"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={id} className="sr-only">
        Edit message
      </label>
      <textarea
        id={id}
        ref={ref}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        rows={2}
        className="block w-full resize-none bg-transparent px-1.5 py-1 text-[15px] leading-7 focus:outline-none"
      />
      <div className="flex items-center justify-end gap-2 pt-1">
        <span className="mr-auto pl-1.5 text-xs text-fg-muted">Sending replaces every message after this one.</span>
        <Button size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button size="sm" variant="primary" type="submit" disabled={!valid}>
          Save &amp; send
        </Button>
      </div>
    </form>
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
  onFork
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
  const createdAt = meta.createdAt;
  const failed = isAssistant && typeof meta.error === "string";

  if (message.role === "system") return null;

  return (
    <article
      data-message-id={message.id}
      data-role={message.role}
      aria-label={`${author}${createdAt ? `, ${messageTime(createdAt, Date.now())}` : ""}`}
      aria-busy={streaming || undefined}
      className={cn(
        "message-row group relative flex gap-3 px-4 transition-colors sm:px-6",
        grouped ? "pt-0.5" : "pt-3",
        "hover:bg-row-hover"
      )}
    >
      <div className="w-8 shrink-0 pt-0.5">
        {!grouped &&
          (persona ? (
            <PersonaAvatar persona={persona} />
          ) : isAssistant ? (
            <AssistantAvatar />
          ) : (
            <Avatar name={author} />
          ))}
      </div>
      <div className="min-w-0 flex-1">
        {/* A heading per message (the author), so screen readers can jump between messages. */}
        {grouped && <h3 className="sr-only">{author}</h3>}
        {!grouped && (
          <header className="flex min-w-0 items-baseline gap-2">
            {/* The author line is the message's heading (screen readers jump by headings). */}
            <h3 className="min-w-0 truncate text-sm font-semibold text-fg">
              {persona ? <PersonaName persona={persona} /> : author}
            </h3>
            {meta.panel && (
              <span className="rounded-md bg-accent-bg px-1.5 py-px text-[11px] font-medium text-accent-fg">
                {meta.panel === "synthesis" ? "panel synthesis" : "panel"}
              </span>
            )}
            {isAssistant && meta.model && (
              <span className="truncate rounded-md bg-surface-2 px-1.5 py-px text-[11px] font-medium text-fg-soft">
                {meta.offline ? "offline model" : meta.model}
              </span>
            )}
            {createdAt && (
              <time
                dateTime={new Date(createdAt).toISOString()}
                title={fullDateTime(createdAt)}
                className="shrink-0 text-xs text-fg-muted tabular-nums"
              >
                {messageTime(createdAt, Date.now())}
              </time>
            )}
          </header>
        )}

        {(meta.version ?? 1) >= 2 && <VersionSwitcher messageId={message.id} version={meta.version ?? 2} />}

        {editing ? (
          <EditForm
            initial={text}
            onCancel={() => setEditing(false)}
            onSave={(next) => {
              setEditing(false);
              onEdit(message.id, next);
            }}
          />
        ) : isAssistant ? (
          <AssistantBody message={message} streaming={streaming || personaPending} />
        ) : (
          <PlainText text={text} />
        )}

        {failed && (
          <Alert
            tone="error"
            silent
            data-answer-error
            icon={<AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />}
            action={
              canRegenerate && (
                <Button size="sm" variant="secondary" onClick={onRegenerate} className="self-center">
                  <RotateCcw className="size-3.5" aria-hidden="true" />
                  Retry
                </Button>
              )
            }
            className="mt-1.5 flex-wrap items-start gap-x-3 gap-y-2"
          >
            <p className="font-medium">The answer failed</p>
            <p className="text-danger-strong">{meta.error}</p>
          </Alert>
        )}

        {!editing && isAssistant && (
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
              {text && <CopyButton text={text} />}
              {onFork && <ForkButton onFork={() => onFork(message.id)} />}
              {canRegenerate && !failed && (
                <IconButton size="sm" label="Regenerate answer" onClick={onRegenerate}>
                  <RefreshCw />
                </IconButton>
              )}
              {meta.traceId && <TraceButton traceId={meta.traceId} />}
              {meta.usage && meta.usage.totalTokens > 0 && (
                <span
                  className="ml-1.5 tabular-nums"
                  title={`${meta.usage.inputTokens} in, ${meta.usage.outputTokens} out`}
                >
                  {formatCount(meta.usage.totalTokens)} tokens
                </span>
              )}
            </div>
          </div>
        )}
        {!editing && !isAssistant && (
          <>
            <div className="h-2" />
            <div className="absolute top-1 right-3 flex items-center gap-0.5 rounded-lg bg-surface p-0.5 opacity-0 shadow-sm ring-1 ring-edge-raised transition-opacity group-focus-within:opacity-100 group-hover:opacity-100 sm:right-5 [@media(pointer:coarse)]:static [@media(pointer:coarse)]:-mt-1 [@media(pointer:coarse)]:mb-1 [@media(pointer:coarse)]:justify-end [@media(pointer:coarse)]:bg-transparent [@media(pointer:coarse)]:opacity-100 [@media(pointer:coarse)]:shadow-none [@media(pointer:coarse)]:ring-0">
              {text && <CopyButton text={text} />}
              {onFork && <ForkButton onFork={() => onFork(message.id)} />}
              {canEdit && (
                <IconButton size="sm" label="Edit message" onClick={() => setEditing(true)}>
                  <Pencil />
                </IconButton>
              )}
            </div>
          </>
        )}
      </div>
    </article>
  );
});
