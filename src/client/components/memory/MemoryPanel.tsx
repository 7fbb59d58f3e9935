/**
 * The room's memory panel: what every answer keeps in mind. Pins (who
 * pinned what, edit, remove, accept what the assistant proposed, add a
 * note) and the summaries that stand in for messages that left the
 * model's window, each with the span it covers. Refetched whenever the
 * room says its memory changed (`RoomState.memory.revision`).
 */
import { type FormEvent, useCallback, useState } from "react";
import { Link } from "react-router";
import { Button } from "@/client/components/ui/Button";
import { Dialog } from "@/client/components/ui/Dialog";
import { ErrorNotice, inputClass } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { useFetchWhileOpen } from "@/client/hooks/use-fetch-while-open";
import { api, errorMessage } from "@/client/lib/api";
import { formatCount, fullDateTime } from "@/client/lib/time";
import { MAX_PIN_LENGTH, type Pin, type RoomMemory } from "@/shared/memory";

const messageLink = (roomId: string, messageId: string) =>
  `/sub/chat-room/${roomId}?m=${encodeURIComponent(messageId)}`;

/** Runs a memory change, showing its error; the panel reloads from the room's revision bump. */
function useAction(reload: () => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (action: () => Promise<unknown>) => {
      setBusy(true);
      setError(null);
      try {
        await action();
        reload();
      } catch (e) {
        setError(errorMessage(e));
      } finally {
        setBusy(false);
      }
    },
    [reload]
  );
  return { error, busy, run };
}

function PinItem({
  roomId,
  pin,
  reload,
  onNavigate
}: {
  roomId: string;
  pin: Pin;
  reload: () => void;
  onNavigate: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(pin.text);
  const { error, busy, run } = useAction(reload);
  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api.updatePin(roomId, pin.id, { text });
      setEditing(false);
    });
  };
  return (
    <li data-pin={pin.id} data-pin-status={pin.status} className="space-y-1 rounded-lg border border-edge-quiet p-3">
      {editing ? (
        <form onSubmit={save} className="space-y-2">
          <textarea
            aria-label="Pin text"
            className={inputClass}
            value={text}
            maxLength={MAX_PIN_LENGTH}
            onChange={(e) => setText(e.target.value)}
            data-autofocus
          />
          <div className="flex gap-2">
            <Button type="submit" size="sm" variant="primary" disabled={busy || !text.trim()}>
              Save
            </Button>
            <Button size="sm" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <p className="text-sm break-words whitespace-pre-wrap text-fg">{pin.text}</p>
      )}
      <p className="text-xs text-fg-muted">
        {pin.status === "proposed" ? "Proposed by the assistant" : `Pinned by ${pin.author.name}`} ·{" "}
        {fullDateTime(pin.createdAt)}
        {pin.updatedBy ? ` · edited by ${pin.updatedBy.name}` : ""}
        {pin.truncated ? " · shortened to fit a pin" : ""}
        {pin.messageId && (
          <>
            {" · "}
            <Link onClick={onNavigate} className="text-accent-fg underline" to={messageLink(roomId, pin.messageId)}>
              the message
            </Link>
          </>
        )}
      </p>
      {!editing && (
        <div className="flex gap-2">
          {pin.status === "proposed" && (
            <Button
              size="sm"
              variant="primary"
              disabled={busy}
              onClick={() => run(() => api.updatePin(roomId, pin.id, { accepted: true }))}
            >
              Accept
            </Button>
          )}
          <Button size="sm" variant="ghost" disabled={busy} onClick={() => setEditing(true)}>
            Edit
          </Button>
          <Button size="sm" variant="ghost" disabled={busy} onClick={() => run(() => api.deletePin(roomId, pin.id))}>
            {pin.status === "proposed" ? "Dismiss" : "Remove"}
          </Button>
        </div>
      )}
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
    </li>
  );
}

function AddNote({ roomId, reload }: { roomId: string; reload: () => void }) {
  const [text, setText] = useState("");
  const { error, busy, run } = useAction(reload);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api.addPin(roomId, { text });
      setText("");
    });
  };
  return (
    <form onSubmit={submit} className="space-y-2">
      <textarea
        aria-label="A note to pin"
        placeholder="A fact or decision every answer should keep in mind, e.g. “We chose Postgres”"
        className={inputClass}
        value={text}
        maxLength={MAX_PIN_LENGTH}
        onChange={(e) => setText(e.target.value)}
      />
      <Button type="submit" size="sm" disabled={busy || !text.trim()}>
        Pin note
      </Button>
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
    </form>
  );
}

function MemoryContents({
  roomId,
  memory,
  reload,
  onNavigate
}: {
  roomId: string;
  memory: RoomMemory;
  reload: () => void;
  onNavigate: () => void;
}) {
  const rebuild = useAction(reload);
  const pinTokens = memory.pins
    .filter((p) => p.status === "active")
    .reduce((s, p) => s + Math.ceil(p.text.length / 4), 0);
  const summaryTokens = memory.summaries.reduce((s, x) => s + x.tokens, 0);
  return (
    <div className="space-y-6">
      <section aria-labelledby="memory-pins" className="space-y-3">
        <h3 id="memory-pins" className="flex justify-between text-sm font-semibold text-fg">
          <span>Pinned ({memory.pins.length})</span>
          <span className="text-xs font-normal text-fg-muted tabular-nums">
            about {formatCount(pinTokens)} of {formatCount(memory.budgets.pins)} tokens
          </span>
        </h3>
        {memory.pins.length === 0 && (
          <p className="text-sm text-fg-muted">Nothing pinned yet. Pin a message from its actions, or write a note.</p>
        )}
        <ul className="space-y-2" aria-label="Pins">
          {memory.pins.map((pin) => (
            <PinItem
              key={`${pin.id}:${pin.updatedAt}`}
              roomId={roomId}
              pin={pin}
              reload={reload}
              onNavigate={onNavigate}
            />
          ))}
        </ul>
        <AddNote roomId={roomId} reload={reload} />
      </section>
      <section aria-labelledby="memory-summaries" className="space-y-3">
        <h3 id="memory-summaries" className="flex justify-between text-sm font-semibold text-fg">
          <span>Summaries ({memory.summaries.length})</span>
          <span className="text-xs font-normal text-fg-muted tabular-nums">
            {formatCount(summaryTokens)} of {formatCount(memory.budgets.summaries)} tokens
          </span>
        </h3>
        <p className="text-xs text-fg-muted">
          When older messages no longer fit the model's {formatCount(memory.budgets.contextTokens)}-token context, a
          summary stands in for them. The messages themselves stay in the room.
          {memory.unsummarised && memory.unsummarised.messageCount > 0
            ? ` ${formatCount(memory.unsummarised.messageCount)} messages have left the window and are not summarised yet.`
            : ""}
        </p>
        {memory.summaries.length === 0 && <p className="text-sm text-fg-muted">No summaries yet.</p>}
        <ul className="space-y-2" aria-label="Summaries">
          {memory.summaries.map((s) => (
            <li key={s.id} data-summary={s.id} className="space-y-1 rounded-lg border border-edge-quiet p-3">
              <p className="text-xs text-fg-muted">
                {formatCount(s.messageCount)} messages,{" "}
                <Link
                  onClick={onNavigate}
                  className="text-accent-fg underline"
                  to={messageLink(roomId, s.fromMessageId)}
                >
                  from here
                </Link>{" "}
                <Link onClick={onNavigate} className="text-accent-fg underline" to={messageLink(roomId, s.toMessageId)}>
                  to here
                </Link>{" "}
                · {s.level > 0 ? "a summary of summaries · " : ""}
                {s.model} · {fullDateTime(s.createdAt)}
                {s.truncated ? " · cut at its token budget" : ""}
              </p>
              <p className="text-sm whitespace-pre-wrap text-fg">{s.text}</p>
            </li>
          ))}
        </ul>
        <div className="flex items-center gap-3">
          <Button
            size="sm"
            disabled={rebuild.busy || memory.rebuilding !== null}
            onClick={() => rebuild.run(() => api.rebuildSummaries(roomId))}
          >
            Rebuild summaries
          </Button>
          {memory.rebuilding && (
            <span role="status" className="text-xs text-fg-muted">
              Rebuilding… {memory.rebuilding.written} written so far; the summaries above stay in use until it is done.
            </span>
          )}
        </div>
        {rebuild.error && <ErrorNotice variant="inline">{rebuild.error}</ErrorNotice>}
      </section>
    </div>
  );
}

/** The room's memory as a sheet, opened from the room menu's "Memory". */
export function MemoryDialog({
  roomId,
  revision,
  open,
  onClose
}: {
  roomId: string;
  revision: number;
  open: boolean;
  onClose: () => void;
}) {
  const {
    data: memory,
    error,
    reload
  } = useFetchWhileOpen(open, `${roomId}:${revision}`, (signal) => api.memory(roomId, signal));

  return (
    <Dialog
      open={open}
      onClose={onClose}
      variant="sheet"
      title="Memory"
      description="What every answer in this room keeps in mind."
    >
      <div className="px-5 py-4">
        {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
        {!memory && !error && <Spinner />}
        {memory && <MemoryContents roomId={roomId} memory={memory} reload={reload} onNavigate={onClose} />}
      </div>
    </Dialog>
  );
}
