/**
 * The workspace's named API tokens (admins): make one with a name and a role
 * (never more than mine), see its secret once with a copy button, list them
 * by name, creation and last use, and revoke any. The workspace keeps only a
 * hash, so a lost secret is a new token, not a lookup.
 */
import { KeyRound, Trash2 } from "lucide-react";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { CopyButton } from "@/client/components/CopyButton";
import { Alert } from "@/client/components/ui/Alert";
import { Button } from "@/client/components/ui/Button";
import { ErrorNotice, Field, inputClass } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { rolesApi } from "@/client/lib/roles-api";
import { fullDateTime } from "@/client/lib/time";
import type { ApiTokenInfo, CreatedApiToken } from "@/shared/members";
import type { WorkspaceRole } from "@/shared/permissions";
import { TokenUsage } from "./TokenUsage";

export function ApiTokens({ myRole }: { myRole: WorkspaceRole }) {
  const [tokens, setTokens] = useState<ApiTokenInfo[] | null>(null);
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async (signal?: AbortSignal) => {
    try {
      setTokens((await rolesApi.tokens(signal)).tokens);
    } catch (failure) {
      if (!signal?.aborted) setError(errorMessage(failure));
    }
  }, []);
  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const revoke = async (token: ApiTokenInfo) => {
    setError(null);
    try {
      await rolesApi.revokeToken(token.id);
      if (created?.id === token.id) setCreated(null);
    } catch (failure) {
      setError(errorMessage(failure));
    }
    await load();
  };

  return (
    <div className="space-y-4">
      <p className="text-sm text-fg-muted">
        A token lets a script act in this workspace as its own identity, named after the token, with the role you give
        it.
      </p>
      <NewTokenForm
        myRole={myRole}
        onCreated={(token) => {
          setCreated(token);
          setTokens((list) => [token, ...(list ?? []).filter((t) => t.id !== token.id)]);
        }}
      />
      {created && <NewSecret token={created} onDone={() => setCreated(null)} />}
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <TokenList tokens={tokens} onRevoke={(token) => void revoke(token)} />
      <TokenUsage />
    </div>
  );
}

function NewTokenForm({ myRole, onCreated }: { myRole: WorkspaceRole; onCreated: (token: CreatedApiToken) => void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<WorkspaceRole>("member");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError("Give the token a name, e.g. the script that will use it.");
    setPending(true);
    setError(null);
    try {
      onCreated(await rolesApi.createToken(name.trim(), role));
      setName("");
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setPending(false);
    }
  };
  return (
    <form onSubmit={submit} noValidate className="flex flex-wrap items-end gap-2">
      <Field label="Token name" error={error} className="min-w-48 flex-1">
        {(props) => (
          <input
            {...props}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. Nightly report"
            maxLength={64}
            className={cn(inputClass, "pointer-coarse:min-h-11")}
          />
        )}
      </Field>
      <Field label="Acts as" className="w-36">
        {(props) => (
          <select
            {...props}
            value={role}
            onChange={(e) => setRole(e.target.value as WorkspaceRole)}
            className={cn(inputClass, "pointer-coarse:min-h-11")}
          >
            <option value="member">Member</option>
            {myRole === "admin" && <option value="admin">Admin</option>}
          </select>
        )}
      </Field>
      <Button variant="primary" type="submit" disabled={pending}>
        {pending && <Spinner className="[&_svg]:size-3.5" />}
        Create token
      </Button>
    </form>
  );
}

/** The secret, this once. */
function NewSecret({ token, onDone }: { token: CreatedApiToken; onDone: () => void }) {
  return (
    <Alert
      tone="warning"
      role="status"
      icon={<KeyRound className="mt-0.5 size-4 shrink-0" aria-hidden="true" />}
      action={
        <Button size="sm" variant="ghost" onClick={onDone}>
          Done
        </Button>
      }
    >
      <p className="font-medium">Copy the token “{token.name}” now: it is not shown again.</p>
      <div className="mt-2 flex items-center gap-2">
        <input
          readOnly
          aria-label="New API token"
          value={token.token}
          onFocus={(event) => event.currentTarget.select()}
          className="min-w-0 flex-1 rounded border border-edge bg-field px-2 py-1 font-mono text-xs text-fg pointer-coarse:min-h-11"
        />
        <CopyButton text={token.token} label="Copy API token" />
      </div>
    </Alert>
  );
}

function TokenList({ tokens, onRevoke }: { tokens: ApiTokenInfo[] | null; onRevoke: (token: ApiTokenInfo) => void }) {
  const [confirming, setConfirming] = useState<string | null>(null);
  if (tokens === null) return <Spinner label="Loading tokens" />;
  if (tokens.length === 0) return <p className="text-sm text-fg-muted">No API tokens yet.</p>;
  return (
    <ul aria-label="API tokens" className="divide-y divide-edge-quiet rounded-lg border border-edge">
      {tokens.map((token) => (
        <li key={token.id} data-token-id={token.id} className="flex flex-wrap items-center gap-2 px-3 py-2">
          <div className="min-w-0 flex-1">
            <p className="truncate text-sm font-medium">
              {token.name} <span className="font-normal text-fg-muted">· {token.role}</span>
            </p>
            <p className="text-xs text-fg-muted">
              Created {fullDateTime(token.createdAt)} by {token.createdBy.name} ·{" "}
              {token.lastUsedAt === null ? "never used" : `last used ${fullDateTime(token.lastUsedAt)}`}
            </p>
          </div>
          {confirming === token.id ? (
            <Button
              size="sm"
              variant="danger"
              onClick={() => {
                setConfirming(null);
                onRevoke(token);
              }}
            >
              Revoke “{token.name}”
            </Button>
          ) : (
            <Button
              size="sm"
              variant="ghost"
              aria-label={`Revoke: ${token.name}`}
              onClick={() => setConfirming(token.id)}
            >
              <Trash2 className="size-3.5" aria-hidden="true" />
              Revoke
            </Button>
          )}
        </li>
      ))}
    </ul>
  );
}
