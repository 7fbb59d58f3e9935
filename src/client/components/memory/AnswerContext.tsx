/**
 * "What the AI saw" for one answer: every part of its model request (the
 * system prompt, the pins, the summaries with the span each stands in for,
 * retrieved passages, the window of recent messages, the tools) with its
 * estimated tokens, and what was in memory but left out. The server keeps
 * references and counts (GET …/messages/:id/context); the pins' and
 * summaries' text is read as it is now, and a pin edited since says so.
 */
import { Eye } from "lucide-react";
import { type ReactNode, useEffect, useState } from "react";
import { Link } from "react-router";
import { useRoomId } from "@/client/components/room/room-route";
import { IconButton } from "@/client/components/ui/Button";
import { Dialog } from "@/client/components/ui/Dialog";
import { ErrorNotice } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { api, errorMessage } from "@/client/lib/api";
import { formatCount } from "@/client/lib/time";
import type { AnswerContext } from "@/shared/memory";

const tokens = (n: number) => `${formatCount(n)} ${n === 1 ? "token" : "tokens"}`;

/** One part of the request: its name, its tokens, and what it held. */
function Part({ name, count, part, children }: { name: string; count: number; part: string; children?: ReactNode }) {
  return (
    <section data-part={part} className="space-y-1.5 border-b border-edge-quiet py-3 last:border-b-0">
      <h3 className="flex items-baseline justify-between gap-3 text-sm font-medium text-fg">
        <span>{name}</span>
        <span data-tokens className="shrink-0 text-xs font-normal text-fg-muted tabular-nums">
          {tokens(count)}
        </span>
      </h3>
      {children && <div className="space-y-1.5 text-[13px] text-fg-soft">{children}</div>}
    </section>
  );
}

const messageLink = (roomId: string, messageId: string) =>
  `/sub/chat-room/${roomId}?m=${encodeURIComponent(messageId)}`;

function ContextParts({
  roomId,
  context,
  onNavigate
}: {
  roomId: string;
  context: AnswerContext;
  onNavigate: () => void;
}) {
  const { record } = context;
  const sum = (list: Array<{ tokens: number }>) => list.reduce((s, x) => s + x.tokens, 0);
  const left = record.leftOut;
  return (
    <div>
      <p className="pb-2 text-sm text-fg-soft tabular-nums" data-testid="context-total">
        {tokens(record.totalTokens)} of a {formatCount(record.budget)}-token budget
        {context.speaker.kind === "persona" ? `, as @${context.speaker.name}` : ""}.
      </p>
      <Part name="System prompt" part="system" count={record.systemPrompt.tokens}>
        {record.systemPrompt.tokens === 0 && <p>None.</p>}
      </Part>
      <Part name={`Pinned (${context.pins.length})`} part="pins" count={sum(record.pins)}>
        {context.pins.length === 0 && <p>No pins were in this context.</p>}
        <ul className="space-y-1">
          {context.pins.map((pin) => (
            <li key={pin.id} className="flex justify-between gap-3">
              <span className="min-w-0 break-words">
                {pin.text ?? <em>a pin removed since</em>}
                {pin.text !== null && pin.changed && (
                  <span className="ml-1.5 text-xs text-warning">(edited since: this is its text now)</span>
                )}
              </span>
              <span className="shrink-0 text-xs text-fg-muted tabular-nums">{formatCount(pin.tokens)}</span>
            </li>
          ))}
        </ul>
      </Part>
      <Part name={`Summaries (${context.summaries.length})`} part="summaries" count={sum(record.summaries)}>
        {context.summaries.length === 0 && <p>No summaries: nothing older had left the window yet.</p>}
        {context.summaries.map((s) => (
          <div key={s.id} className="space-y-1">
            <p className="flex justify-between gap-3 text-xs text-fg-muted">
              <span>
                Stands in for {formatCount(s.messageCount)} messages,{" "}
                <Link
                  onClick={onNavigate}
                  className="text-accent-fg underline"
                  to={messageLink(roomId, s.fromMessageId)}
                >
                  from here
                </Link>{" "}
                <Link onClick={onNavigate} className="text-accent-fg underline" to={messageLink(roomId, s.toMessageId)}>
                  to here
                </Link>
                {s.level > 0 ? " (a summary of summaries)" : ""}
              </span>
              <span className="shrink-0 tabular-nums">{formatCount(s.tokens)}</span>
            </p>
            <p className="whitespace-pre-wrap">{s.text ?? <em>no longer kept</em>}</p>
          </div>
        ))}
      </Part>
      {record.passages.length > 0 && (
        <Part name={`Passages from files (${record.passages.length})`} part="passages" count={sum(record.passages)}>
          <ul>
            {record.passages.map((p) => (
              <li key={p.passageId}>{p.name ?? p.fileId}</li>
            ))}
          </ul>
        </Part>
      )}
      <Part name="Recent messages" part="window" count={record.window.tokens}>
        {record.window.fromMessageId ? (
          <p>
            {formatCount(record.window.messageCount)} messages,{" "}
            <Link
              onClick={onNavigate}
              className="text-accent-fg underline"
              to={messageLink(roomId, record.window.fromMessageId)}
            >
              from here
            </Link>{" "}
            to the question.
          </p>
        ) : (
          <p>None (a panel's synthesis reads the panel's answers instead).</p>
        )}
      </Part>
      <Part name={`Tools (${record.tools.length})`} part="tools" count={sum(record.tools)}>
        {record.tools.length > 0 && <p>{record.tools.map((t) => t.name).join(", ")}</p>}
      </Part>
      {(left.messages > 0 || left.pins.length > 0 || left.summaries.length > 0 || left.passages.length > 0) && (
        <section data-part="left-out" className="mt-2 rounded-lg bg-warning-bg px-3 py-2 text-[13px] text-warning">
          <h3 className="font-medium">Not in this context</h3>
          <ul className="list-disc pl-5">
            {left.messages > 0 && (
              <li>{formatCount(left.messages)} earlier messages: out of the window and not summarised yet.</li>
            )}
            {left.pins.length > 0 && <li>{left.pins.length} pins over the pins' token budget.</li>}
            {left.summaries.length > 0 && <li>{left.summaries.length} older summaries over their budget.</li>}
            {left.passages.length > 0 && <li>{left.passages.length} passages over their budget.</li>}
          </ul>
        </section>
      )}
    </div>
  );
}

export function AnswerContextButton({ messageId }: { messageId: string }) {
  const roomId = useRoomId();
  const [open, setOpen] = useState(false);
  const [context, setContext] = useState<AnswerContext | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    setError(null);
    api.answerContext(roomId, messageId, controller.signal).then(setContext, (e: unknown) => {
      if (!controller.signal.aborted) setError(errorMessage(e));
    });
    return () => controller.abort();
  }, [open, roomId, messageId]);

  return (
    <>
      <IconButton size="sm" label="What the AI saw" onClick={() => setOpen(true)}>
        <Eye />
      </IconButton>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title="What the AI saw"
        description="Everything that went into the model's request for this answer, in estimated tokens (about 4 characters each)."
      >
        <div className="px-5 py-3">
          {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
          {!context && !error && <Spinner />}
          {context && <ContextParts roomId={roomId} context={context} onNavigate={() => setOpen(false)} />}
        </div>
      </Dialog>
    </>
  );
}
