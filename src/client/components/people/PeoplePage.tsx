/**
 * The workspace's people and access page (`/people`, from the sidebar's
 * footer): who I am here, and for admins everyone who has used the
 * workspace with their role (make admin, make member), the named API
 * tokens (people/ApiTokens.tsx) and the workspace's tools: the MCP servers
 * every room offers (the room Tools dialog's editor, over the workspace's
 * routes). Others read who can manage this instead; the server refuses
 * them anyway.
 */
import { ShieldCheck } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { MobileTopBar } from "@/client/components/RoomStates";
import { McpServersEditor } from "@/client/components/tools/ToolsPanel";
import { Avatar } from "@/client/components/ui/Avatar";
import { ErrorNotice, inputClass } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { rolesApi } from "@/client/lib/roles-api";
import { fullDateTime } from "@/client/lib/time";
import { workspaceMcpApi } from "@/client/lib/tools-api";
import type { Person, WorkspaceAccess } from "@/shared/members";
import { WORKSPACE_ROLES, type WorkspaceRole, whoMay } from "@/shared/permissions";
import { MAX_MCP_SERVERS_PER_WORKSPACE } from "@/shared/tools";
import { ApiTokens } from "./ApiTokens";

const ROLE_NAMES: Record<WorkspaceRole, string> = { admin: "Admin", member: "Member" };

export function PeoplePage() {
  const [me, setMe] = useState<WorkspaceAccess | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = "People and access · Rooms";
    const controller = new AbortController();
    rolesApi.me(controller.signal).then(setMe, (failure: unknown) => {
      if (!controller.signal.aborted) setError(errorMessage(failure));
    });
    return () => {
      controller.abort();
      document.title = "Rooms";
    };
  }, []);
  const may = new Set(me?.may ?? []);
  return (
    <div className="flex h-full flex-col">
      <MobileTopBar title="People and access" />
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto max-w-3xl space-y-8 px-4 py-6 sm:px-6">
          <header className="space-y-1">
            <h1 ref={headingRef} tabIndex={-1} className="text-xl font-semibold tracking-tight focus:outline-none">
              People and access
            </h1>
            {me ? (
              <p className="flex items-center gap-1.5 text-sm text-fg-muted">
                <ShieldCheck className="size-4" aria-hidden="true" />
                You are {me.role === "admin" ? "an admin" : "a member"} of this workspace, as {me.user.name}.
              </p>
            ) : error ? (
              <ErrorNotice>{error}</ErrorNotice>
            ) : (
              <Spinner label="Loading" />
            )}
          </header>
          {me && (
            <>
              <section aria-labelledby="people-heading" className="space-y-3">
                <h2 id="people-heading" className="text-base font-semibold">
                  People
                </h2>
                {may.has("workspace.people") ? (
                  <PeopleList selfId={me.user.id} />
                ) : (
                  <p className="text-sm text-fg-muted">{whoMay("workspace.people")}</p>
                )}
              </section>
              <section aria-labelledby="tokens-heading" className="space-y-3">
                <h2 id="tokens-heading" className="text-base font-semibold">
                  API tokens
                </h2>
                {may.has("workspace.tokens") ? (
                  <ApiTokens myRole={me.role} />
                ) : (
                  <p className="text-sm text-fg-muted">{whoMay("workspace.tokens")}</p>
                )}
              </section>
              <section aria-labelledby="workspace-tools-heading" className="space-y-3">
                <h2 id="workspace-tools-heading" className="text-base font-semibold">
                  Workspace tools
                </h2>
                {may.has("workspace.tools") ? (
                  <div className="space-y-2">
                    <p className="text-sm text-fg-muted">
                      MCP servers every room offers its assistant besides its own. The policies set here apply in every
                      room.
                    </p>
                    <div className="rounded-lg border border-edge">
                      <McpServersEditor
                        api={workspaceMcpApi}
                        max={MAX_MCP_SERVERS_PER_WORKSPACE}
                        offeredWhere="to the assistant in every room"
                      />
                    </div>
                  </div>
                ) : (
                  <p className="text-sm text-fg-muted">{whoMay("workspace.tools")}</p>
                )}
              </section>
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function PeopleList({ selfId }: { selfId: string }) {
  const [people, setPeople] = useState<Person[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(async (signal?: AbortSignal) => {
    try {
      setPeople((await rolesApi.people(signal)).people);
    } catch (failure) {
      if (!signal?.aborted) setError(errorMessage(failure));
    }
  }, []);
  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const setRole = async (person: Person, role: WorkspaceRole) => {
    setBusy(true);
    setError(null);
    try {
      setPeople((await rolesApi.setRole(person.id, role)).people);
    } catch (failure) {
      // The server keeps its word (the last admin stays): show it, and what is true now.
      setError(errorMessage(failure));
      await load();
    } finally {
      setBusy(false);
    }
  };

  if (!people) return error ? <ErrorNotice>{error}</ErrorNotice> : <Spinner label="Loading people" />;
  return (
    <div className="space-y-2">
      <p className="text-sm text-fg-muted">
        Admins manage every room (private ones included), the workspace's settings, its people and its API tokens.
      </p>
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <ul aria-label="People" className="divide-y divide-edge-quiet rounded-lg border border-edge">
        {people.map((person) => (
          <li key={person.id} data-person-id={person.id} className="flex flex-wrap items-center gap-3 px-3 py-2">
            <Avatar name={person.name} seed={person.id} size="sm" />
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium">
                {person.name}
                {person.id === selfId && <span className="font-normal text-fg-muted"> (you)</span>}
              </p>
              <p className="text-xs text-fg-muted">
                {person.kind === "api" ? "API token" : person.kind === "access" ? "Cloudflare Access" : "Signed in"} ·
                last seen {fullDateTime(person.lastSeen)}
                {person.configuredAdmin && " · admin by the server's configuration"}
              </p>
            </div>
            <select
              aria-label={`Role of ${person.name}`}
              value={person.role}
              disabled={busy || person.configuredAdmin}
              title={person.configuredAdmin ? "Made an admin by the server's configuration (ADMINS)" : undefined}
              onChange={(event) => void setRole(person, event.target.value as WorkspaceRole)}
              className={cn(inputClass, "w-auto pointer-coarse:min-h-11")}
            >
              {WORKSPACE_ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_NAMES[role]}
                </option>
              ))}
            </select>
          </li>
        ))}
      </ul>
    </div>
  );
}
