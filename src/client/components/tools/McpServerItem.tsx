/**
 * One MCP server in the Tools dialog: its name, host and connection state
 * (with the error when it failed), the header names it sends (never their
 * values: the server does not give them back), Reconnect, Remove (asked
 * twice), and each of its tools with the policy the assistant follows.
 * Every change shows the server's refusal in place, beside what it was about.
 */
import { LogIn, RefreshCw, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import { Button, buttonClass } from "@/client/components/ui/Button";
import { ErrorNotice, inputClass } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { StatusLabel } from "@/client/components/ui/StatusLabel";
import { usePendingAction } from "@/client/hooks/use-pending-action";
import { POLICY_OPTIONS, serverStateLabel, toolCountLabel, urlHost } from "@/client/lib/mcp-view";
import type { McpServersApi } from "@/client/lib/tools-api";
import type { McpServerView, McpToolView, ToolPolicy } from "@/shared/tools";

/** A tool's policy: a labelled select that saves on change, showing the saved value once the server took it. */
function ToolPolicyRow({ api, serverId, tool }: { api: McpServersApi; serverId: string; tool: McpToolView }) {
  const [policy, setPolicy] = useState<ToolPolicy>(tool.policy);
  const { pending, error, run } = usePendingAction();
  const selectId = useId();
  const hintId = useId();
  const change = (next: ToolPolicy) =>
    run(async () => {
      const previous = policy;
      setPolicy(next);
      try {
        setPolicy((await api.setPolicy(serverId, tool.name, next)).policy);
      } catch (failure) {
        setPolicy(previous);
        throw failure;
      }
    });
  return (
    <li className="space-y-1 py-2" data-tool={tool.name}>
      <div className="flex flex-wrap items-center gap-2">
        <div className="min-w-0 flex-1">
          <label htmlFor={selectId} className="font-mono text-[13px] break-all text-fg">
            {tool.name}
          </label>
          {tool.readOnly && <span className="ml-1.5 text-xs text-fg-muted">(read-only)</span>}
        </div>
        {pending && <Spinner label={`Saving ${tool.name}`} className="[&_svg]:size-3.5" />}
        <select
          id={selectId}
          aria-describedby={tool.description ? hintId : undefined}
          aria-invalid={error ? true : undefined}
          className={`${inputClass} w-auto py-1`}
          value={policy}
          disabled={pending}
          onChange={(e) => void change(e.target.value as ToolPolicy)}
        >
          {POLICY_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {tool.description && (
        <p id={hintId} className="line-clamp-3 text-xs text-fg-muted">
          {tool.description}
        </p>
      )}
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
    </li>
  );
}

export function McpServerItem({
  api,
  server,
  onChanged
}: {
  /** The routes of the room or workspace the server is in. */
  api: McpServersApi;
  server: McpServerView;
  /** The server changed (reconnected, or removed): the dialog lists them again. */
  onChanged: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const { pending, error, run } = usePendingAction();
  const state = serverStateLabel(server.state);
  const act = (action: () => Promise<unknown>) =>
    run(async () => {
      await action();
      onChanged();
    });
  return (
    <li data-server-id={server.id} className="space-y-2 rounded-lg border border-edge p-3" aria-busy={pending}>
      <div className="flex flex-wrap items-start gap-2">
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-semibold text-fg">{server.name}</p>
          <p className="truncate text-xs text-fg-muted" title={server.url}>
            {urlHost(server.url)} · {toolCountLabel(server.tools.length)}
            {server.headerNames.length > 0 && ` · sends ${server.headerNames.join(", ")} (kept on the server)`}
          </p>
        </div>
        <StatusLabel tone={state.tone} className="mt-0.5">
          {state.label}
        </StatusLabel>
      </div>
      {server.state === "failed" && server.error && (
        <ErrorNotice variant="inline" className="break-words">
          {server.error}
        </ErrorNotice>
      )}
      {server.authUrl && (
        <p className="flex flex-wrap items-center gap-2 text-xs text-fg-muted">
          {/* Same tab: the provider sends the browser back to this room once signed in. */}
          <a href={server.authUrl} className={buttonClass({ size: "sm" })} aria-label={`Sign in to ${server.name}`}>
            <LogIn className="size-3.5" aria-hidden="true" />
            Sign in
          </a>
          {server.name} asks for a sign-in; its tokens stay on the server, in this room.
        </p>
      )}
      <div className="flex flex-wrap gap-1">
        <Button
          size="sm"
          variant="ghost"
          disabled={pending}
          aria-label={`Reconnect ${server.name}`}
          onClick={() => void act(() => api.reconnect(server.id))}
        >
          <RefreshCw className="size-3.5" aria-hidden="true" />
          Reconnect
        </Button>
        {confirming ? (
          <>
            <Button
              size="sm"
              variant="danger"
              disabled={pending}
              onClick={() => void act(() => api.removeServer(server.id))}
            >
              Remove {server.name}
            </Button>
            <Button size="sm" variant="ghost" disabled={pending} onClick={() => setConfirming(false)}>
              Keep it
            </Button>
          </>
        ) : (
          <Button
            size="sm"
            variant="ghost"
            disabled={pending}
            aria-label={`Remove ${server.name}`}
            onClick={() => setConfirming(true)}
          >
            <Trash2 className="size-3.5" aria-hidden="true" />
            Remove
          </Button>
        )}
        {pending && <Spinner label={`Working on ${server.name}`} className="self-center" />}
      </div>
      {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
      {server.tools.length > 0 && (
        <ul aria-label={`${server.name}'s tools`} className="divide-y divide-edge-quiet border-t border-edge-quiet">
          {server.tools.map((tool) => (
            <ToolPolicyRow key={`${tool.name}:${tool.policy}`} api={api} serverId={server.id} tool={tool} />
          ))}
        </ul>
      )}
    </li>
  );
}
