/**
 * `‹ 1/2 ›` on an edited question or a regenerated answer. The room shows the
 * newest version; earlier ones are kept by the server (nothing an edit or a
 * regeneration replaces is deleted) and fetched only when someone asks, so an
 * ordinary room load costs nothing extra. An earlier version is shown in place,
 * read-only, with the messages that followed it on its own branch.
 */
import { ChevronLeft, ChevronRight } from "lucide-react";
import { useState } from "react";
import { useParams } from "react-router";
import { api, errorMessage } from "@/client/lib/api";
import { messageText } from "@/client/lib/messages";
import type { MessageVersions } from "@/shared/protocol";
import { IconButton } from "./ui/Button";
import { ErrorNotice } from "./ui/Field";

export function VersionSwitcher({ messageId, version }: { messageId: string; version: number }) {
  const { roomId } = useParams();
  const [versions, setVersions] = useState<MessageVersions["versions"] | null>(null);
  const [shown, setShown] = useState(version);
  const [error, setError] = useState<string | null>(null);
  const total = versions?.length ?? version;

  async function show(next: number) {
    if (!roomId) return;
    let list = versions;
    if (!list) {
      try {
        list = (await api.messageVersions(roomId, messageId)).versions;
      } catch (failure) {
        setError(errorMessage(failure));
        return;
      }
      setVersions(list);
    }
    setError(null);
    setShown(Math.min(Math.max(1, next), list.length));
  }

  const earlier = versions && shown < versions.length ? versions[shown - 1] : null;
  return (
    <div className="mt-1">
      <fieldset className="inline-flex items-center gap-0.5 text-xs text-fg-soft">
        <legend className="sr-only">Versions of this message</legend>
        <IconButton size="sm" label="Previous version" disabled={shown <= 1} onClick={() => show(shown - 1)}>
          <ChevronLeft />
        </IconButton>
        <span className="tabular-nums" data-version-position>
          {shown}/{total}
        </span>
        <IconButton size="sm" label="Next version" disabled={shown >= total} onClick={() => show(shown + 1)}>
          <ChevronRight />
        </IconButton>
      </fieldset>
      {error && (
        <ErrorNotice variant="inline" className="text-xs">
          {error}
        </ErrorNotice>
      )}
      {earlier && (
        <section
          aria-label={`Version ${shown} of ${total}`}
          data-earlier-version
          className="mt-1 rounded-lg border border-edge-raised bg-surface-well p-2 text-sm"
        >
          <p className="mb-1 text-xs font-medium text-fg-soft">
            Earlier version {shown} of {total}, kept as it was
          </p>
          <ol className="space-y-1">
            {earlier.messages.map((m) => (
              <li key={m.id}>
                <span className="font-medium">{m.role === "assistant" ? "Assistant" : "Question"}: </span>
                <span className="whitespace-pre-wrap">{messageText(m)}</span>
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}
