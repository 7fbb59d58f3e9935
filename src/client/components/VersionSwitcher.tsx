/**
 * `‹ 1/2 ›` on an edited question or a regenerated answer. The room shows the
 * newest version; earlier ones are kept by the server (nothing an edit or a
 * regeneration replaces is deleted) and fetched only when someone asks, so an
 * ordinary room load costs nothing extra. An earlier version is shown in place,
 * read-only, as the room showed it (authors, personas, Markdown), with the
 * messages that followed it on its own branch.
 */
import { ChevronLeft, ChevronRight } from "lucide-react";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useRoomId } from "@/client/components/room/room-route";
import { api, errorMessage } from "@/client/lib/api";
import { fromChatMessage, type RoomMessage } from "@/client/lib/messages";
import { IconButton } from "./ui/Button";
import { ErrorNotice } from "./ui/Field";

export function VersionSwitcher({
  messageId,
  version,
  openVersion,
  renderMessages
}: {
  messageId: string;
  version: number;
  /** Open at this earlier version (a link to where someone's message went). */
  openVersion?: number;
  /** Draws an earlier version's messages (MessageItem's, without an import circle). */
  renderMessages: (messages: RoomMessage[]) => ReactNode;
}) {
  const roomId = useRoomId();
  const [versions, setVersions] = useState<RoomMessage[][] | null>(null);
  const [shown, setShown] = useState(version);
  const [error, setError] = useState<string | null>(null);
  const total = Math.max(versions?.length ?? 0, version);

  // A newer version arriving (an edit or a regeneration elsewhere) outdates
  // the fetched list; the room shows the newest one again.
  const [seenVersion, setSeenVersion] = useState(version);
  if (seenVersion !== version) {
    setSeenVersion(version);
    setShown(version);
    if (versions && versions.length < version) setVersions(null);
  }

  async function show(next: number) {
    if (!roomId) return;
    let list = versions;
    // A list fetched before the newest version was stored is fetched again.
    if (!list || list.length < version) {
      try {
        list = (await api.messageVersions(roomId, messageId)).versions.map((v) => v.messages.map(fromChatMessage));
      } catch (failure) {
        setError(errorMessage(failure));
        return;
      }
      setVersions(list);
    }
    setError(null);
    setShown(Math.min(Math.max(1, next), list.length));
  }
  const showRef = useRef(show);
  showRef.current = show;
  useEffect(() => {
    if (openVersion !== undefined) void showRef.current(openVersion);
  }, [openVersion]);

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
          className="mt-1 -ml-11 rounded-lg border border-edge-raised bg-surface-well pb-2"
        >
          <p className="px-4 pt-2 text-xs font-medium text-fg-soft sm:px-6">
            Earlier version {shown} of {total}, kept as it was
          </p>
          {renderMessages(earlier)}
        </section>
      )}
    </div>
  );
}
