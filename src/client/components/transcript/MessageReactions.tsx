/**
 * A message's reactions: each emoji with how many reacted (who, on hover
 * and to a screen reader), pressed when one of them is mine, and "Add
 * reaction" with a few to pick from (among the message's actions). One click joins or takes back a
 * reaction; everyone sees the change live (lib/reaction-store.ts is fed by
 * the room socket). Where reacting is not allowed (a share link's viewer)
 * the reactions show read-only.
 */

import { SmilePlus } from "lucide-react";
import { createContext, useContext, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useRoomId } from "@/client/components/room/room-route";
import { IconButton } from "@/client/components/ui/Button";
import { api, errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { reactionStore } from "@/client/lib/reaction-store";
import { QUICK_REACTIONS, type Reaction } from "@/shared/reactions";

/** Who may react here: the room's id and my identity's id; null where nobody can (a share viewer). */
export const ReactingContext = createContext<{ roomId: string; selfId: string } | null>(null);

function useReactions(roomId: string, messageId: string): Reaction[] {
  const store = reactionStore(roomId);
  return useSyncExternalStore(
    (listener) => store.subscribe(messageId, listener),
    () => store.of(messageId)
  );
}

function whoReacted(reaction: Reaction, selfId: string | undefined): string {
  const names = reaction.by.map((p) => (p.id === selfId ? "you" : p.name));
  return `${reaction.emoji} by ${names.join(", ")}`;
}

/**
 * The quick choices, in the flow of the actions bar rather than a popover:
 * a transcript row is its own stacking context, so anything floating out of
 * it would sit under the next row.
 */
function Picker({ onPick, onClose }: { onPick: (emoji: string) => void; onClose: () => void }) {
  const ref = useRef<HTMLFieldSetElement>(null);
  useEffect(() => {
    ref.current?.querySelector("button")?.focus();
    const onDown = (event: PointerEvent) => {
      if (!ref.current?.contains(event.target as Node)) onClose();
    };
    document.addEventListener("pointerdown", onDown);
    return () => document.removeEventListener("pointerdown", onDown);
  }, [onClose]);
  return (
    <fieldset
      ref={ref}
      aria-label="Pick a reaction"
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.preventDefault();
        event.stopPropagation();
        onClose();
      }}
      className="m-0 ml-1 flex min-w-0 flex-wrap gap-0.5 rounded-lg border-0 bg-surface p-0.5 ring-1 ring-edge-raised"
    >
      {QUICK_REACTIONS.map((emoji) => (
        <button
          key={emoji}
          type="button"
          aria-label={`React with ${emoji}`}
          onClick={() => onPick(emoji)}
          className="inline-flex size-8 cursor-pointer items-center justify-center rounded-md text-lg hover:bg-surface-2 pointer-coarse:size-11"
        >
          {emoji}
        </button>
      ))}
    </fieldset>
  );
}

async function toggleReaction(roomId: string, messageId: string, emoji: string): Promise<string | null> {
  try {
    const result = await api.toggleReaction(roomId, messageId, emoji);
    reactionStore(roomId).merge({ [messageId]: result.reactions });
    return null;
  } catch (e) {
    return errorMessage(e);
  }
}

/** "Add reaction", among a message's actions; nothing where reacting is not allowed. */
export function AddReactionButton({ messageId }: { messageId: string }) {
  const reacting = useContext(ReactingContext);
  const [picking, setPicking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!reacting) return null;
  return (
    <span className="relative inline-flex items-center">
      <IconButton size="sm" label="Add reaction" aria-expanded={picking} onClick={() => setPicking((p) => !p)}>
        <SmilePlus />
      </IconButton>
      {picking && (
        <Picker
          onPick={async (emoji) => {
            setPicking(false);
            setError(await toggleReaction(reacting.roomId, messageId, emoji));
          }}
          onClose={() => setPicking(false)}
        />
      )}
      {error && (
        <span role="alert" className="ml-1 text-xs text-danger-strong">
          {error}
        </span>
      )}
    </span>
  );
}

/** The reactions under a message; nothing when it has none. */
export function MessageReactions({ messageId }: { messageId: string }) {
  // From the route here, not from the row: a row that read the route would re-render on every route render.
  const roomId = useRoomId();
  const reacting = useContext(ReactingContext);
  const reactions = useReactions(roomId, messageId);
  const [error, setError] = useState<string | null>(null);
  if (reactions.length === 0) return null;
  return (
    <div data-reactions className="mt-1 flex flex-wrap items-center gap-1">
      {reactions.map((reaction) => {
        const mine = reaction.by.some((p) => p.id === reacting?.selfId);
        const label = whoReacted(reaction, reacting?.selfId);
        return (
          <button
            key={reaction.emoji}
            type="button"
            data-reaction={reaction.emoji}
            aria-pressed={reacting ? mine : undefined}
            aria-label={`${label}${reacting ? (mine ? ". Take back your reaction" : ". React too") : ""}`}
            title={label}
            disabled={!reacting}
            onClick={async () => setError(await toggleReaction(roomId, messageId, reaction.emoji))}
            className={cn(
              "inline-flex h-7 items-center gap-1 rounded-full px-2 text-sm ring-1 ring-inset transition-colors pointer-coarse:h-9",
              mine ? "bg-accent-bg ring-accent-line" : "bg-surface-2 ring-edge",
              reacting ? "cursor-pointer hover:ring-accent-line" : "cursor-default"
            )}
          >
            <span aria-hidden="true">{reaction.emoji}</span>
            <span className="text-xs text-fg-muted tabular-nums" aria-hidden="true">
              {reaction.by.length}
            </span>
          </button>
        );
      })}
      {error && (
        <span role="alert" className="text-xs text-danger-strong">
          {error}
        </span>
      )}
    </div>
  );
}
