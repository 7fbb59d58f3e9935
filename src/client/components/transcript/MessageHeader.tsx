/**
 * A message's avatar and author line (author, panel badge, model, time).
 * The author line is the message's heading, so screen readers can jump
 * between messages; a grouped message keeps a hidden one.
 */

import { PersonaAvatar, PersonaName } from "@/client/components/personas/persona-colours";
import { AssistantAvatar, Avatar } from "@/client/components/ui/Avatar";
import type { RoomMessage } from "@/client/lib/messages";
import { fullDateTime, messageTime } from "@/client/lib/time";
import { authorId } from "@/shared/identity";

export function MessageAvatar({ message, author }: { message: RoomMessage; author: string }) {
  const persona = message.role === "assistant" ? message.metadata?.persona : undefined;
  if (persona) return <PersonaAvatar persona={persona} />;
  if (message.role === "assistant") return <AssistantAvatar />;
  return <Avatar name={author} seed={authorId(message.metadata?.author) ?? undefined} />;
}

export function MessageHeader({ message, author }: { message: RoomMessage; author: string }) {
  const meta = message.metadata ?? {};
  const isAssistant = message.role === "assistant";
  const persona = isAssistant ? meta.persona : undefined;
  const createdAt = meta.createdAt;
  return (
    <header className="flex min-w-0 items-baseline gap-2">
      <h2 className="min-w-0 truncate text-sm font-semibold text-fg">
        {persona ? <PersonaName persona={persona} /> : author}
      </h2>
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
  );
}
