/**
 * A room's invitation links (owner and admins): make one (how long it works,
 * how many may join with it), copy it, see the active ones and revoke any.
 * Whoever opens a link lands on the invitation page (/invite/<token>) and
 * joins with one click, after signing in if they need to.
 */
import { Trash2 } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { CopyButton } from "@/client/components/CopyButton";
import { Button, IconButton } from "@/client/components/ui/Button";
import { ErrorNotice, Field, inputClass } from "@/client/components/ui/Field";
import { errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { rolesApi } from "@/client/lib/roles-api";
import { fullDateTime } from "@/client/lib/time";
import type { InviteLink } from "@/shared/members";

const DAY = 24 * 60 * 60;
const LIFETIMES = [
  { label: "1 day", seconds: DAY },
  { label: "7 days", seconds: 7 * DAY },
  { label: "30 days", seconds: 30 * DAY }
];
const USES: Array<{ label: string; maxUses: number | undefined }> = [
  { label: "Any number of people", maxUses: undefined },
  { label: "1 person", maxUses: 1 },
  { label: "5 people", maxUses: 5 },
  { label: "25 people", maxUses: 25 }
];

const absolute = (path: string) => new URL(path, window.location.origin).toString();

/** A room's links, kept current: made, revoked and read again after each change. */
function useInviteLinks(roomId: string) {
  const [invites, setInvites] = useState<InviteLink[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  /**
   * Bumped by every create and revoke: a list read before one must not
   * replace the list after it (the panel's first read answering after a quick
   * create dropped the new link). Each change reads the list again after.
   */
  const changes = useRef(0);
  const refresh = useCallback(async () => {
    const seen = changes.current;
    try {
      const { invites } = await rolesApi.invites(roomId);
      if (changes.current === seen) setInvites(invites);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }, [roomId]);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  async function create(expiresIn: number, maxUses: number | undefined) {
    changes.current++;
    setBusy(true);
    setError(null);
    try {
      const link = await rolesApi.createInvite(roomId, { expiresIn, ...(maxUses === undefined ? {} : { maxUses }) });
      setInvites((list) => [...(list ?? []).filter((i) => i.id !== link.id), link]);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
      void refresh();
    }
  }

  async function revoke(invite: InviteLink) {
    changes.current++;
    setError(null);
    try {
      await rolesApi.revokeInvite(roomId, invite.id);
      setInvites((list) => (list ?? []).filter((i) => i.id !== invite.id));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      void refresh();
    }
  }

  return { invites, busy, error, create, revoke };
}

export function InviteLinks({ roomId }: { roomId: string }) {
  const [lifetime, setLifetime] = useState(1);
  const [uses, setUses] = useState(0);
  const { invites, busy, error, create, revoke } = useInviteLinks(roomId);

  return (
    <div className="space-y-3">
      <p className="text-xs text-fg-muted">
        Anyone with an invitation link can join this room, after signing in to the workspace.
      </p>
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Link works for" className="min-w-32 flex-1">
          {(props) => (
            <select
              {...props}
              className={cn(inputClass, "pointer-coarse:min-h-11")}
              value={lifetime}
              onChange={(e) => setLifetime(Number(e.target.value))}
            >
              {LIFETIMES.map((option, index) => (
                <option key={option.label} value={index}>
                  {option.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Who may join" className="min-w-32 flex-1">
          {(props) => (
            <select
              {...props}
              className={cn(inputClass, "pointer-coarse:min-h-11")}
              value={uses}
              onChange={(e) => setUses(Number(e.target.value))}
            >
              {USES.map((option, index) => (
                <option key={option.label} value={index}>
                  {option.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Button
          variant="primary"
          onClick={() => void create(LIFETIMES[lifetime].seconds, USES[uses].maxUses)}
          disabled={busy}
        >
          {busy ? "Creating…" : "Create invitation link"}
        </Button>
      </div>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <InviteList invites={invites} onRevoke={(invite) => void revoke(invite)} />
    </div>
  );
}

function InviteList({ invites, onRevoke }: { invites: InviteLink[] | null; onRevoke: (invite: InviteLink) => void }) {
  return invites === null ? (
    <p className="text-sm text-fg-muted">Loading…</p>
  ) : invites.length === 0 ? (
    <p className="text-sm text-fg-muted">No invitation links yet.</p>
  ) : (
    <ul className="space-y-2" aria-label="Invitation links">
      {invites.map((invite) => (
        <li
          key={invite.id}
          data-invite-id={invite.id}
          className="flex items-center gap-2 rounded-lg border border-edge px-3 py-2"
        >
          <div className="min-w-0 flex-1">
            <input
              readOnly
              aria-label="Invitation link"
              value={absolute(invite.path)}
              onFocus={(event) => event.currentTarget.select()}
              className="w-full truncate bg-transparent font-mono text-xs text-fg-2 focus:outline-none pointer-coarse:min-h-11"
            />
            <p className="text-xs text-fg-muted">
              By {invite.createdBy.name} · {invite.maxUses === null ? invite.uses : `${invite.uses}/${invite.maxUses}`}{" "}
              joined · expires {fullDateTime(invite.expiresAt)}
            </p>
          </div>
          <CopyButton text={absolute(invite.path)} label="Copy invitation link" />
          <IconButton size="sm" tone="danger" label="Revoke invitation link" onClick={() => onRevoke(invite)}>
            <Trash2 />
          </IconButton>
        </li>
      ))}
    </ul>
  );
}
