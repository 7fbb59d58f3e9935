/**
 * A room's members (the room header's "Members" action): who is in it and
 * their role, whether it is private, adding people of the workspace by
 * name (members/AddPeople.tsx), invitation links, handing the room
 * over, removing someone and leaving. What the caller may not do is not
 * offered, and a line says who can (the same words as the server's
 * refusal, from shared/permissions.ts); the server checks again anyway.
 */
import { Crown, Lock, LogOut, UserMinus, Users } from "lucide-react";
import { type ReactNode, useCallback, useEffect, useState } from "react";
import { useAuth } from "@/client/components/AuthGate";
import { Avatar } from "@/client/components/ui/Avatar";
import { Button } from "@/client/components/ui/Button";
import { Dialog } from "@/client/components/ui/Dialog";
import { ErrorNotice } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { useRoomList } from "@/client/hooks/use-room-list";
import { api, errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { rolesApi } from "@/client/lib/roles-api";
import { fullDateTime } from "@/client/lib/time";
import type { MemberList, RoomMember } from "@/shared/members";
import { whoMay } from "@/shared/permissions";
import { AddPeople } from "./AddPeople";
import { InviteLinks } from "./InviteLinks";

export function MembersDialog({
  roomId,
  roomName,
  open,
  onClose,
  onLeft
}: {
  roomId: string;
  roomName: string;
  open: boolean;
  onClose: () => void;
  /** I left a room I can no longer see. */
  onLeft: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Members"
      description={`Who is in “${roomName}”, and who can see it.`}
      variant="sheet"
    >
      <MembersBody roomId={roomId} onLeft={onLeft} />
    </Dialog>
  );
}

/** A line saying who can do what this person may not. */
function WhoCan({ children }: { children: string }) {
  return <p className="text-xs text-fg-muted">{children}</p>;
}

/** Mounted each time the dialog opens (see Dialog): it asks for the members afresh then. */
function MembersBody({ roomId, onLeft }: { roomId: string; onLeft: () => void }) {
  const [list, setList] = useState<MemberList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(
    async (signal?: AbortSignal) => {
      try {
        setList(await rolesApi.members(roomId, signal));
      } catch (failure) {
        if (!signal?.aborted) setError(errorMessage(failure));
      }
    },
    [roomId]
  );
  useEffect(() => {
    const controller = new AbortController();
    void refresh(controller.signal);
    return () => controller.abort();
  }, [refresh]);

  /** One change at a time; the list is asked again after it, so it shows what the server decided. */
  const change = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
    await refresh();
  };

  if (!list) {
    return (
      <div className="px-5 py-4">
        {error ? <ErrorNotice>{error}</ErrorNotice> : <Spinner label="Loading members" />}
      </div>
    );
  }
  const may = new Set(list.me.may);
  return (
    <div className="space-y-6 px-5 py-4" aria-busy={busy || undefined}>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <PrivacySwitch roomId={roomId} list={list} busy={busy} change={change} />
      <MemberRows roomId={roomId} list={list} busy={busy} change={change} onLeft={onLeft} />
      <section aria-labelledby="invite-heading" className="space-y-2">
        <h3 id="invite-heading" className="text-sm font-semibold text-fg-2">
          Invite people
        </h3>
        {may.has("room.invite") ? (
          <>
            <AddPeople roomId={roomId} members={list.members.map((m) => m.id).join(",")} busy={busy} change={change} />
            <InviteLinks roomId={roomId} />
          </>
        ) : (
          <WhoCan>{whoMay("room.invite")}</WhoCan>
        )}
      </section>
    </div>
  );
}

type Change = (action: () => Promise<unknown>) => Promise<void>;

/** The lock: a switch between a workspace room and a private one. */
function PrivacySwitch({
  roomId,
  list,
  busy,
  change
}: {
  roomId: string;
  list: MemberList;
  busy: boolean;
  change: Change;
}) {
  const { upsert } = useRoomList();
  const isPrivate = list.me.visibility === "private";
  const allowed = list.me.may.includes("room.visibility");
  return (
    <section aria-labelledby="privacy-heading" className="space-y-2 rounded-lg border border-edge p-3">
      <div className="flex items-center gap-3">
        <Lock className="size-4 shrink-0 text-fg-muted" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <h3 id="privacy-heading" className="text-sm font-semibold text-fg-2">
            Private room
          </h3>
          <p id="privacy-hint" className="text-xs text-fg-muted">
            {isPrivate
              ? "Only its members and the workspace's admins can see this room."
              : "Everyone in the workspace can see this room and talk in it."}
          </p>
        </div>
        <button
          type="button"
          role="switch"
          aria-checked={isPrivate}
          aria-labelledby="privacy-heading"
          aria-describedby="privacy-hint"
          disabled={!allowed || busy}
          onClick={() =>
            void change(async () =>
              upsert(await api.updateRoom(roomId, { visibility: isPrivate ? "workspace" : "private" }))
            )
          }
          className="group inline-flex h-8 w-12 shrink-0 cursor-pointer items-center justify-center disabled:cursor-not-allowed disabled:opacity-50 pointer-coarse:h-11 pointer-coarse:w-14"
        >
          <span
            aria-hidden="true"
            className={cn(
              "flex h-6 w-11 items-center rounded-full p-0.5 transition-colors group-focus-visible:ring-3 group-focus-visible:ring-accent-line/40",
              isPrivate ? "bg-accent-fill" : "bg-edge-strong"
            )}
          >
            <span
              className={cn(
                "size-5 rounded-full bg-surface shadow-sm transition-transform",
                isPrivate && "translate-x-5"
              )}
            />
          </span>
        </button>
      </div>
      {!allowed && <WhoCan>{whoMay("room.visibility")}</WhoCan>}
    </section>
  );
}

interface RowsProps {
  roomId: string;
  list: MemberList;
  busy: boolean;
  change: Change;
  onLeft: () => void;
}

/** A member's buttons: leave (oneself), hand over and remove (others), each asking once more before it acts. */
function MemberActions({
  member,
  roomId,
  list,
  busy,
  change,
  onLeft,
  confirming,
  setConfirming
}: RowsProps & { member: RoomMember; confirming: string | null; setConfirming: (key: string | null) => void }) {
  const { user } = useAuth();
  const { remove } = useRoomList();
  const may = new Set(list.me.may);
  const ask = (key: string, label: string, confirm: string, act: () => Promise<unknown>, icon: ReactNode) =>
    confirming === `${key}:${member.id}` ? (
      <Button
        size="sm"
        variant="danger"
        disabled={busy}
        onClick={() => {
          setConfirming(null);
          void change(act);
        }}
      >
        {confirm}
      </Button>
    ) : (
      <Button
        size="sm"
        variant="ghost"
        disabled={busy}
        aria-label={`${label}: ${member.name}`}
        onClick={() => setConfirming(`${key}:${member.id}`)}
      >
        {icon}
        {label}
      </Button>
    );
  if (member.id === user.id) {
    if (member.role === "owner") return null;
    const leave = async () => {
      await rolesApi.removeMember(roomId, user.id);
      if (list.me.visibility === "private" && list.me.workspaceRole !== "admin") {
        remove(roomId, "access");
        onLeft();
      }
    };
    return ask("leave", "Leave", "Leave this room", leave, <LogOut className="size-3.5" aria-hidden="true" />);
  }
  if (member.role === "owner") return null;
  return (
    <>
      {may.has("room.transfer") &&
        ask(
          "owner",
          "Make owner",
          `Hand over to ${member.name}`,
          () => rolesApi.handOver(roomId, member.id),
          <Crown className="size-3.5" aria-hidden="true" />
        )}
      {may.has("room.remove_member") &&
        ask(
          "remove",
          "Remove",
          `Remove ${member.name}`,
          () => rolesApi.removeMember(roomId, member.id),
          <UserMinus className="size-3.5" aria-hidden="true" />
        )}
    </>
  );
}

function MemberRows(props: RowsProps) {
  const { list } = props;
  const { user } = useAuth();
  /** The action waiting for a second click: "<action>:<member id>". */
  const [confirming, setConfirming] = useState<string | null>(null);
  const ownerIsMe = list.members.some((m) => m.id === user.id && m.role === "owner");
  return (
    <section aria-labelledby="members-heading" className="space-y-2">
      <h3 id="members-heading" className="flex items-center gap-1.5 text-sm font-semibold text-fg-2">
        <Users className="size-4" aria-hidden="true" />
        {list.members.length === 1 ? "1 member" : `${list.members.length} members`}
      </h3>
      {list.members.length === 0 ? (
        <p className="text-sm text-fg-muted">
          No one has joined yet. Everyone in the workspace can see this room while it is not private.
        </p>
      ) : (
        <ul aria-label="Members" className="divide-y divide-edge-quiet rounded-lg border border-edge">
          {list.members.map((member) => (
            <li key={member.id} data-member-id={member.id} className="flex flex-wrap items-center gap-2 px-3 py-2">
              <Avatar name={member.name} seed={member.id} size="sm" />
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-medium text-fg">
                  {member.name}
                  {member.id === user.id && <span className="font-normal text-fg-muted"> (you)</span>}
                </p>
                <p className="text-xs text-fg-muted">
                  {member.role === "owner" ? "Owner" : "Member"} · joined{" "}
                  <time dateTime={new Date(member.joinedAt).toISOString()}>{fullDateTime(member.joinedAt)}</time>
                </p>
              </div>
              <div className="flex flex-wrap gap-1">
                <MemberActions {...props} member={member} confirming={confirming} setConfirming={setConfirming} />
              </div>
            </li>
          ))}
        </ul>
      )}
      {!list.hasOwner && (
        <p className="text-xs text-fg-muted">
          This room has no owner: it was made before rooms had owners. A workspace admin can hand it to a member.
        </p>
      )}
      {ownerIsMe && <WhoCan>You own this room: hand it over to a member before you can leave it.</WhoCan>}
      {!list.me.may.includes("room.remove_member") && <WhoCan>{whoMay("room.remove_member")}</WhoCan>}
    </section>
  );
}
