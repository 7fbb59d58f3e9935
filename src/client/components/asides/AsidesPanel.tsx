/**
 * Private asides: ask the room's assistant something only you see, inside
 * the shared room. The assistant reads the room to answer; nobody else sees
 * the question or the answer (not in their history, search or exports, and
 * not in the room's later answers) until you press "Share to room", which
 * puts both in the room for everyone. Opened from the room menu's "Ask
 * privately"; the server side is room/room-asides.ts.
 */
import { Lock, Send } from "lucide-react";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { MessageText } from "@/client/components/MessageText";
import { Button } from "@/client/components/ui/Button";
import { Dialog } from "@/client/components/ui/Dialog";
import { ErrorNotice, inputClass } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { useFetchWhileOpen } from "@/client/hooks/use-fetch-while-open";
import { usePendingAction } from "@/client/hooks/use-pending-action";
import { api } from "@/client/lib/api";
import { fullDateTime } from "@/client/lib/time";
import { type Aside, MAX_ASIDE_LENGTH } from "@/shared/asides";

const messageLink = (roomId: string, messageId: string) =>
  `/sub/chat-room/${roomId}?m=${encodeURIComponent(messageId)}`;

function AsideItem({
  roomId,
  aside,
  onChange,
  onNavigate
}: {
  roomId: string;
  aside: Aside;
  onChange: () => void;
  onNavigate: () => void;
}) {
  const { pending: busy, error, run: runAction } = usePendingAction();
  const run = (action: () => Promise<unknown>) =>
    runAction(async () => {
      await action();
      onChange();
    });
  return (
    <li data-aside={aside.id} className="space-y-2 rounded-lg border border-edge-quiet p-3">
      <p className="text-sm font-medium break-words whitespace-pre-wrap text-fg">{aside.question}</p>
      {aside.error ? (
        <ErrorNotice variant="inline">The answer failed: {aside.error}</ErrorNotice>
      ) : (
        <div className="text-sm">
          <MessageText text={aside.answer} streaming={false} />
        </div>
      )}
      <p className="text-xs text-fg-muted">
        {fullDateTime(aside.createdAt)}
        {aside.model ? ` · ${aside.model}` : ""}
        {aside.sharedAt !== null && aside.sharedMessageId && (
          <>
            {" · shared to the room · "}
            <Link
              onClick={onNavigate}
              className="text-accent-fg underline"
              to={messageLink(roomId, aside.sharedMessageId)}
            >
              see it there
            </Link>
          </>
        )}
      </p>
      <div className="flex gap-2">
        {aside.sharedAt === null && !aside.error && (
          <Button
            size="sm"
            variant="primary"
            disabled={busy}
            onClick={() => run(() => api.shareAside(roomId, aside.id))}
          >
            Share to room
          </Button>
        )}
        <Button size="sm" variant="ghost" disabled={busy} onClick={() => run(() => api.deleteAside(roomId, aside.id))}>
          Delete
        </Button>
      </div>
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
    </li>
  );
}

function AskAside({ roomId, onAsked }: { roomId: string; onAsked: () => void }) {
  const [text, setText] = useState("");
  const { pending: asking, error, run } = usePendingAction();
  // On failure what was typed stays, to try again.
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api.askAside(roomId, text);
      setText("");
      onAsked();
    });
  };
  return (
    <form onSubmit={submit} className="space-y-2">
      <textarea
        aria-label="Ask the assistant privately"
        placeholder="A question only you will see, e.g. “What did Bob mean by the second option?”"
        className={inputClass}
        value={text}
        maxLength={MAX_ASIDE_LENGTH}
        onChange={(e) => setText(e.target.value)}
        data-autofocus
      />
      <div className="flex items-center gap-2">
        <Button type="submit" size="sm" variant="primary" disabled={asking || !text.trim()}>
          <Send className="size-3.5" aria-hidden="true" />
          Ask privately
        </Button>
        {asking && (
          <span role="status" className="flex items-center gap-2 text-xs text-fg-muted">
            <Spinner /> The assistant is reading the room…
          </span>
        )}
      </div>
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
    </form>
  );
}

/** Your private asides in this room, as a sheet. */
export function AsidesDialog({ roomId, open, onClose }: { roomId: string; open: boolean; onClose: () => void }) {
  const { data, error, reload } = useFetchWhileOpen(open, roomId, (signal) => api.asides(roomId, signal));
  const asides = data?.asides ?? null;

  return (
    <Dialog
      open={open}
      onClose={onClose}
      variant="sheet"
      title="Ask privately"
      description="Only you see these questions and answers, until you share one to the room."
    >
      <div className="space-y-4 px-5 py-4">
        <p className="flex items-center gap-1.5 text-xs text-fg-muted">
          <Lock className="size-3.5" aria-hidden="true" />
          The assistant reads the room to answer; the room never sees your aside, nor do later answers.
        </p>
        <AskAside roomId={roomId} onAsked={reload} />
        {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
        {!asides && !error && <Spinner />}
        {asides && asides.length === 0 && <p className="text-sm text-fg-muted">No asides in this room yet.</p>}
        {asides && asides.length > 0 && (
          <ul className="space-y-2" aria-label="Your asides">
            {asides.map((aside) => (
              <AsideItem
                key={`${aside.id}:${aside.sharedAt ?? ""}`}
                roomId={roomId}
                aside={aside}
                onChange={reload}
                onNavigate={onClose}
              />
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}
