/**
 * Share links from the room header: create a read-only link (optionally
 * expiring), copy it, see every active link of the room and revoke any of
 * them. A revoked or expired link stops working at once, and anyone
 * watching through it is disconnected.
 */
import { Trash2 } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { api, errorMessage } from "@/client/lib/api";
import { fullDateTime } from "@/client/lib/time";
import type { ShareLink } from "@/shared/shares";
import { CopyButton } from "./CopyButton";
import { Button, IconButton } from "./ui/Button";
import { Dialog } from "./ui/Dialog";
import { ErrorNotice, Field, inputClass } from "./ui/Field";

const LIFETIMES: Array<{ label: string; seconds: number | undefined }> = [
  { label: "Until revoked", seconds: undefined },
  { label: "1 hour", seconds: 60 * 60 },
  { label: "1 day", seconds: 24 * 60 * 60 },
  { label: "7 days", seconds: 7 * 24 * 60 * 60 },
  { label: "30 days", seconds: 30 * 24 * 60 * 60 }
];

const absolute = (path: string) => new URL(path, window.location.origin).toString();

export function ShareDialog({
  roomId,
  roomName,
  open,
  onClose
}: {
  roomId: string;
  roomName: string;
  open: boolean;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Share room"
      description={`Anyone with a link can watch “${roomName}” live, read-only, without signing in.`}
    >
      <SharePanel roomId={roomId} />
    </Dialog>
  );
}

function ShareLinkList({ shares, onRevoke }: { shares: ShareLink[] | null; onRevoke: (share: ShareLink) => void }) {
  return shares === null ? (
    <p className="text-sm text-fg-muted">Loading…</p>
  ) : shares.length === 0 ? (
    <p className="text-sm text-fg-muted">No links yet.</p>
  ) : (
    <ul className="space-y-2" aria-label="Active share links">
      {shares.map((share) => (
        <li
          key={share.id}
          data-share-id={share.id}
          className="flex items-center gap-2 rounded-lg border border-edge px-3 py-2"
        >
          <div className="min-w-0 flex-1">
            <input
              readOnly
              aria-label="Share link"
              value={absolute(share.path)}
              onFocus={(event) => event.currentTarget.select()}
              className="w-full truncate bg-transparent font-mono text-xs text-fg-2 focus:outline-none"
            />
            <p className="text-xs text-fg-muted">
              By {share.createdBy.name} ·{" "}
              {share.expiresAt ? `expires ${fullDateTime(share.expiresAt)}` : "until revoked"}
            </p>
          </div>
          <CopyButton text={absolute(share.path)} label="Copy share link" />
          <IconButton size="sm" tone="danger" label="Revoke link" onClick={() => onRevoke(share)}>
            <Trash2 />
          </IconButton>
        </li>
      ))}
    </ul>
  );
}

/** Mounted each time the dialog opens (see Dialog): it asks for the room's links afresh then. */
function SharePanel({ roomId }: { roomId: string }) {
  const [shares, setShares] = useState<ShareLink[] | null>(null);
  const [lifetime, setLifetime] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setShares((await api.listShares(roomId)).shares);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }, [roomId]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  async function create() {
    setBusy(true);
    setError(null);
    try {
      const link = await api.createShare(roomId, LIFETIMES[lifetime].seconds);
      setShares((list) => [...(list ?? []).filter((s) => s.id !== link.id), link]);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(share: ShareLink) {
    setError(null);
    try {
      await api.revokeShare(roomId, share.id);
      setShares((list) => (list ?? []).filter((s) => s.id !== share.id));
    } catch (failure) {
      setError(errorMessage(failure));
      void refresh();
    }
  }

  return (
    <div className="space-y-5 px-5 py-4">
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Link works" className="min-w-40 flex-1">
          {(props) => (
            <select
              {...props}
              className={inputClass}
              value={lifetime}
              onChange={(event) => setLifetime(Number(event.target.value))}
            >
              {LIFETIMES.map((option, index) => (
                <option key={option.label} value={index}>
                  {option.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Button variant="primary" onClick={() => void create()} disabled={busy}>
          {busy ? "Creating…" : "Create link"}
        </Button>
      </div>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <section aria-labelledby="share-links-heading">
        <h3 id="share-links-heading" className="mb-2 text-sm font-medium text-fg-2">
          Active links
        </h3>
        <ShareLinkList shares={shares} onRevoke={(share) => void revoke(share)} />
      </section>
    </div>
  );
}
