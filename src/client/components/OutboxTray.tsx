/**
 * Messages waiting in the outbox: shown above the composer until the room has
 * stored them (then they join the transcript), with why they wait.
 */
import { AlertTriangle, Clock } from "lucide-react";
import type { Outbox } from "@/client/hooks/use-outbox";
import { Button } from "./ui/Button";

export function OutboxTray({ outbox, online }: { outbox: Outbox; online: boolean }) {
  if (outbox.items.length === 0) return null;
  return (
    <div className="shrink-0 px-3 sm:px-6">
      <ul aria-label="Messages waiting to be sent" className="mx-auto flex w-full max-w-3xl flex-col gap-1.5 pt-2">
        {outbox.items.map((item, index) => (
          <li
            key={item.id}
            data-outbox-id={item.id}
            className="flex items-start gap-2 rounded-xl border border-dashed border-edge-strong bg-surface-well px-3 py-2 text-sm"
          >
            {item.error ? (
              <AlertTriangle className="mt-0.5 size-4 shrink-0 text-danger-strong" aria-hidden="true" />
            ) : (
              <Clock className="mt-0.5 size-4 shrink-0 text-fg-soft" aria-hidden="true" />
            )}
            <div className="min-w-0 flex-1">
              <p className="line-clamp-3 break-words whitespace-pre-wrap text-fg">{item.text}</p>
              <p className="text-xs text-fg-soft">
                {item.error ? (
                  <span className="text-danger-strong">Not sent: {item.error}</span>
                ) : online && index === 0 ? (
                  "Sending…"
                ) : online ? (
                  "Queued"
                ) : (
                  "Waiting for the connection; sent when it returns"
                )}
              </p>
            </div>
            {item.error && (
              <Button size="sm" variant="ghost" onClick={() => outbox.retry(item.id)}>
                Retry
              </Button>
            )}
            <Button size="sm" variant="ghost" onClick={() => outbox.discard(item.id)}>
              Discard
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}
