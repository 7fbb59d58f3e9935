/**
 * The invitation page (`/invite/<token>`): which room, in which workspace,
 * who invited, until when; one click joins with the identity signed in now
 * (the sign-in gate came first, for a visitor who had none). A link that no
 * longer works says why instead of a bare 404.
 */
import { ArrowLeft, MailOpen, SearchX } from "lucide-react";
import { type ReactNode, useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useAuth } from "@/client/components/AuthGate";
import { CenteredState, MobileTopBar } from "@/client/components/RoomStates";
import { Button, buttonClass } from "@/client/components/ui/Button";
import { ErrorNotice } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { ApiError, errorMessage } from "@/client/lib/api";
import { rolesApi } from "@/client/lib/roles-api";
import { roomPath } from "@/client/lib/routes";
import { fullDateTime } from "@/client/lib/time";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import type { InviteView } from "@/shared/members";

const BACK = (
  <Link to="/" className={buttonClass()}>
    <ArrowLeft className="size-4" aria-hidden="true" />
    Back to rooms
  </Link>
);

/** What a refused invitation means to the person holding it. */
function refusal(error: unknown): { title: string; text: string } {
  if (error instanceof ApiError && error.status === 404) {
    return {
      title: "This invitation no longer works",
      text: "It expired, was revoked, or its room was deleted. Ask whoever invited you for a new link."
    };
  }
  if (error instanceof ApiError && error.code === "conflict:invite_used_up") {
    return {
      title: "This invitation has been used up",
      text: "As many people as it allowed have joined with it. Ask whoever invited you for a new link."
    };
  }
  return { title: "Could not open this invitation", text: errorMessage(error) };
}

export function InvitePage() {
  const { token = "" } = useParams();
  const { user } = useAuth();
  const navigate = useNavigate();
  const [invite, setInvite] = useState<InviteView | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [joining, setJoining] = useState(false);
  const [joinError, setJoinError] = useState<string | null>(null);

  useEffect(() => {
    document.title = "Invitation · Rooms";
    const controller = new AbortController();
    rolesApi.viewInvite(token, controller.signal).then(setInvite, (error: unknown) => {
      if (!controller.signal.aborted) setFailure(error);
    });
    return () => {
      controller.abort();
      document.title = "Rooms";
    };
  }, [token]);

  // The app opens one workspace; a room elsewhere is joined, then reached there.
  const here = invite?.workspace === DEFAULT_WORKSPACE;
  const join = async () => {
    if (!invite) return;
    if (invite.alreadyMember && here) return navigate(roomPath(invite.roomId), { replace: true });
    setJoining(true);
    setJoinError(null);
    try {
      const joined = await rolesApi.acceptInvite(token);
      if (joined.workspace === DEFAULT_WORKSPACE) navigate(roomPath(joined.roomId), { replace: true });
      else setInvite({ ...invite, alreadyMember: true });
    } catch (error) {
      const { title, text } = refusal(error);
      setJoinError(`${title}. ${text}`);
    } finally {
      setJoining(false);
    }
  };

  let body: ReactNode;
  if (failure) {
    const { title, text } = refusal(failure);
    body = (
      <CenteredState icon={<SearchX className="size-6" />} title={title} actions={BACK}>
        {text}
      </CenteredState>
    );
  } else if (!invite) {
    body = (
      <div className="flex flex-1 items-center justify-center" aria-busy="true">
        <Spinner label="Opening the invitation" />
      </div>
    );
  } else {
    body = (
      <CenteredState
        icon={<MailOpen className="size-6" />}
        title={`Join “${invite.roomName}”`}
        actions={
          <>
            {BACK}
            {(here || !invite.alreadyMember) && (
              <Button variant="primary" onClick={() => void join()} disabled={joining}>
                {joining && <Spinner className="[&_svg]:size-3.5" />}
                {invite.alreadyMember ? "Open room" : "Join room"}
              </Button>
            )}
          </>
        }
      >
        <p>
          {invite.invitedBy} invited you to this room in the workspace <strong>{invite.workspace}</strong>. You will
          join as <strong>{user.name}</strong>.
        </p>
        <p>
          {invite.alreadyMember
            ? here
              ? "You are already in this room."
              : "You are in this room now; open it in its workspace."
            : `The invitation works until ${fullDateTime(invite.expiresAt)}.`}
        </p>
        {joinError && <ErrorNotice>{joinError}</ErrorNotice>}
      </CenteredState>
    );
  }
  return (
    <div className="flex h-full flex-col">
      <MobileTopBar title="Invitation" />
      {body}
    </div>
  );
}
