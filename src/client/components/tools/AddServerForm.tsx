/**
 * The form for adding an MCP server (to a room, in its Tools dialog, or to
 * the workspace, on the People and access page): a name, its
 * https address, and optionally one header for a token. The header's value
 * is sent once and kept on the server; the form forgets it as soon as the
 * server took it, and nothing shows or logs it. When the server refuses,
 * its sentence shows and everything typed stays, so one field can be fixed.
 */
import { KeyRound } from "lucide-react";
import { type FormEvent, useState } from "react";
import { Alert } from "@/client/components/ui/Alert";
import { Button } from "@/client/components/ui/Button";
import { ErrorNotice, Field, inputClass } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { usePendingAction } from "@/client/hooks/use-pending-action";
import {
  type AddServerDraft,
  type AddServerErrors,
  addServerBody,
  EMPTY_SERVER_DRAFT,
  hasErrors,
  validateServerDraft
} from "@/client/lib/mcp-view";
import type { McpServersApi } from "@/client/lib/tools-api";
import type { McpServerView } from "@/shared/tools";

export function AddServerForm({ api, onAdded }: { api: McpServersApi; onAdded: (server: McpServerView) => void }) {
  const [draft, setDraft] = useState<AddServerDraft>(EMPTY_SERVER_DRAFT);
  const [errors, setErrors] = useState<AddServerErrors>({});
  const { pending, error, run } = usePendingAction();
  const set = (field: keyof AddServerDraft) => (value: string) => {
    setDraft((d) => ({ ...d, [field]: value }));
    setErrors({});
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateServerDraft(draft);
    setErrors(found);
    if (hasErrors(found)) return;
    await run(async () => {
      const server = await api.addServer(addServerBody(draft));
      // The token is on the server now: the form keeps no copy of it.
      setDraft(EMPTY_SERVER_DRAFT);
      onAdded(server);
    });
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="add-server-heading" className="space-y-3">
      <h3 id="add-server-heading" className="text-sm font-semibold text-fg-2">
        Add a server
      </h3>
      <Field label="Server name" error={errors.name}>
        {(props) => (
          <input
            {...props}
            className={inputClass}
            value={draft.name}
            placeholder="e.g. Issue tracker"
            onChange={(e) => set("name")(e.target.value)}
          />
        )}
      </Field>
      <Field
        label="Server address"
        hint="The server's Streamable HTTP endpoint; it must start with https:."
        error={errors.url}
      >
        {(props) => (
          <input
            {...props}
            type="url"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            className={inputClass}
            value={draft.url}
            placeholder="https://mcp.example.com/mcp"
            onChange={(e) => set("url")(e.target.value)}
          />
        )}
      </Field>
      <TokenHeaderFields
        name={draft.headerName}
        value={draft.headerValue}
        error={errors.header}
        onName={set("headerName")}
        onValue={set("headerValue")}
      />
      {error && <ErrorNotice>{error}</ErrorNotice>}
      <Button type="submit" variant="primary" disabled={pending}>
        {pending && <Spinner className="[&_svg]:size-3.5" />}
        {pending ? "Connecting…" : "Add server"}
      </Button>
    </form>
  );
}

/** One header for a token: its name and its value, which is typed into a password field and never shown again. */
function TokenHeaderFields({
  name,
  value,
  error,
  onName,
  onValue
}: {
  name: string;
  value: string;
  error: string | undefined;
  onName: (name: string) => void;
  onValue: (value: string) => void;
}) {
  return (
    <fieldset className="space-y-3 rounded-lg border border-edge p-3">
      <legend className="px-1 text-sm font-medium text-fg-2">Token header (optional)</legend>
      <Alert tone="info" role="note" icon={<KeyRound className="mt-0.5 size-4 shrink-0" aria-hidden="true" />}>
        Kept on the server, never shown again: the list shows the header's name only.
      </Alert>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Header name">
          {(props) => (
            <input
              {...props}
              aria-invalid={error ? true : undefined}
              autoComplete="off"
              spellCheck={false}
              className={inputClass}
              value={name}
              placeholder="Authorization"
              onChange={(e) => onName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Header value">
          {(props) => (
            <input
              {...props}
              aria-invalid={error ? true : undefined}
              type="password"
              autoComplete="off"
              spellCheck={false}
              className={inputClass}
              value={value}
              placeholder="Bearer …"
              onChange={(e) => onValue(e.target.value)}
            />
          )}
        </Field>
      </div>
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
    </fieldset>
  );
}
