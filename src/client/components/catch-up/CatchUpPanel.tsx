/**
 * Catch me up: a summary of what happened in the room since you last read
 * it, written for you alone (the server answers only you and stores it
 * nowhere), with a link to each message it covers. Asked for from the
 * "N new messages" bar (NewMessages.tsx); closes with its ×.
 */
import { X } from "lucide-react";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { IconButton } from "@/client/components/ui/Button";
import { Spinner } from "@/client/components/ui/Spinner";
import { api, errorMessage } from "@/client/lib/api";
import { messagePath } from "@/client/lib/routes";
import type { CatchUp } from "@/shared/catch-up";

export function CatchUpPanel({ roomId, from, onClose }: { roomId: string; from: string; onClose: () => void }) {
  const [result, setResult] = useState<CatchUp | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    api
      .catchUp(roomId, from)
      .then((value) => current && setResult(value))
      .catch((e) => current && setError(errorMessage(e)));
    return () => {
      current = false;
    };
  }, [roomId, from]);

  return (
    <section
      aria-label="Catch-up, only you see this"
      className="mx-4 mt-2 max-h-[40vh] shrink-0 overflow-y-auto rounded-lg border border-edge-raised bg-surface-2 px-4 py-3 text-sm sm:mx-6"
    >
      <div className="flex items-start gap-2">
        <h2 className="flex-1 text-sm font-semibold">
          Catch-up <span className="font-normal text-fg-muted">· only you see this</span>
        </h2>
        <IconButton label="Close catch-up" size="sm" onClick={onClose}>
          <X />
        </IconButton>
      </div>
      {error ? (
        <p role="alert" className="mt-1 text-danger">
          {error}
        </p>
      ) : !result ? (
        <p className="mt-1 flex items-center gap-2 text-fg-muted" role="status">
          <Spinner /> Reading what you missed…
        </p>
      ) : result.summary === null ? (
        <p className="mt-1 text-fg-muted">Nothing new since you last read this room.</p>
      ) : (
        <>
          <p className="mt-1 whitespace-pre-wrap">{result.summary}</p>
          {result.partial && (
            <p className="mt-1 text-xs text-fg-muted">
              This covers the newest {result.messages.length} messages; there is more before them.
            </p>
          )}
          <ol aria-label="Messages it covers" className="mt-2 space-y-0.5">
            {result.messages.map((m) => (
              <li key={m.id} className="truncate">
                <Link to={messagePath(roomId, m.id)} className="text-accent-fg underline-offset-2 hover:underline">
                  <span className="font-medium">{m.author}</span>: {m.preview || "(no text)"}
                </Link>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
