/**
 * Adding someone who already uses the workspace to a room, by name, from the
 * members panel: no link to pass around, which is what a private room
 * mostly needs. Offered to the room's owner and admins (the same right as
 * inviting); the server checks again and lists only people of this
 * workspace who are not members yet.
 */
import { UserPlus } from "lucide-react";
import { useEffect, useState } from "react";
import { Avatar } from "@/client/components/ui/Avatar";
import { Button } from "@/client/components/ui/Button";
import { ErrorNotice, Field, inputClass } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { rolesApi } from "@/client/lib/roles-api";
import type { MemberCandidates } from "@/shared/members";

/** Typing pauses this long before the list is asked again. */
const QUERY_PAUSE_MS = 200;

export function AddPeople({
  roomId,
  members,
  busy,
  change
}: {
  roomId: string;
  /** The member ids now: the list is asked again when they change (someone was added). */
  members: string;
  busy: boolean;
  change: (action: () => Promise<unknown>) => Promise<void>;
}) {
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<MemberCandidates | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    // `members` is read so that adding someone asks for the list again.
    void members;
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      try {
        setFound(await rolesApi.memberCandidates(roomId, query.trim(), controller.signal));
        setError(null);
      } catch (failure) {
        if (!controller.signal.aborted) setError(errorMessage(failure));
      }
    }, QUERY_PAUSE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [roomId, query, members]);

  return (
    <div className="space-y-2">
      <Field label="Add people from this workspace" hint="They can see the room at once; no link needed.">
        {(props) => (
          <input
            {...props}
            type="search"
            value={query}
            maxLength={40}
            placeholder="Search by name"
            onChange={(event) => setQuery(event.target.value)}
            className={cn(inputClass, "pointer-coarse:min-h-11")}
          />
        )}
      </Field>
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
      {!found && !error && <Spinner label="Looking for people" />}
      {found &&
        (found.people.length === 0 ? (
          <p className="text-xs text-fg-muted">
            {query.trim() ? `No one else here is called “${query.trim()}”.` : "Everyone here is a member already."}
          </p>
        ) : (
          <ul aria-label="People you can add" className="divide-y divide-edge-quiet rounded-lg border border-edge">
            {found.people.map((person) => (
              <li key={person.id} className="flex items-center gap-2 px-3 py-1.5">
                <Avatar name={person.name} seed={person.id} size="sm" />
                <span className="min-w-0 flex-1 truncate text-sm text-fg">{person.name}</span>
                <Button
                  size="sm"
                  variant="ghost"
                  disabled={busy}
                  aria-label={`Add ${person.name}`}
                  onClick={() => void change(() => rolesApi.addMember(roomId, person.id))}
                >
                  <UserPlus className="size-3.5" aria-hidden="true" />
                  Add
                </Button>
              </li>
            ))}
          </ul>
        ))}
    </div>
  );
}
