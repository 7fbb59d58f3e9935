/**
 * The room's "info" panel: its live agent tree (GET /api/rooms/:id/agents),
 * refreshed while open, so you can see who is streaming, on what, and what
 * each agent stores and spends.
 */
import { useEffect, useState } from "react";
import { api, errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { countOf, formatCount } from "@/client/lib/time";
import type { AgentNode, AgentTree, BudgetUse } from "@/shared/introspection";
import { Dialog } from "./ui/Dialog";
import { ErrorNotice } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

/** How often the open panel asks again. */
const REFRESH_MS = 1_500;

const STATUS_STYLE: Record<AgentNode["status"], string> = {
  idle: "bg-surface-2 text-fg-soft",
  queued: "bg-warning-tint text-warning",
  streaming: "bg-info-tint text-info",
  failed: "bg-danger-tint text-danger-strong"
};

function bytes(n: number | null): string {
  if (n === null) return "—";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function budgetText(use: BudgetUse): string {
  // Exact figures: a budget is a limit someone set, not a magnitude to round.
  const used = use.usedToday.toLocaleString();
  return use.daily > 0
    ? `${used} of ${use.daily.toLocaleString()} tokens used today (UTC)`
    : `${used} tokens used today (UTC), no daily limit`;
}

function Budgets({ budget }: { budget: NonNullable<AgentTree["budget"]> }) {
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs text-fg-soft tabular-nums">
      <dt className="font-medium">Room budget</dt>
      <dd data-testid="room-budget">{budgetText(budget.room)}</dd>
      {budget.workspace && (
        <>
          <dt className="font-medium">Workspace budget</dt>
          <dd data-testid="workspace-budget">{budgetText(budget.workspace)}</dd>
        </>
      )}
    </dl>
  );
}

function Node({ node, depth }: { node: AgentNode; depth: number }) {
  return (
    <li data-agent={node.id} data-agent-status={node.status} className="space-y-1">
      <div className="flex flex-wrap items-baseline gap-2 text-sm" style={{ paddingLeft: `${depth}rem` }}>
        <span className="font-medium text-fg">{node.kind === "room" ? node.name : `@${node.name}`}</span>
        <span className={cn("rounded px-1.5 text-[11px] font-medium", STATUS_STYLE[node.status])}>{node.status}</span>
        {node.activity && <span className="text-xs text-fg-muted">{node.activity}</span>}
      </div>
      <p className="text-xs text-fg-muted tabular-nums" style={{ paddingLeft: `${depth}rem` }}>
        {typeof node.messages === "number" ? countOf(node.messages, "message") : "— messages"} ·{" "}
        {bytes(node.storageBytes)} ·{" "}
        {node.tokens
          ? `${formatCount(node.tokens.today)} tokens today, ${formatCount(node.tokens.total.totalTokens)} in all`
          : "no tokens yet"}
        {node.lastActiveAt ? ` · active ${new Date(node.lastActiveAt).toLocaleTimeString()}` : ""}
      </p>
      {node.children.length > 0 && (
        <ul className="space-y-2">
          {node.children.map((child) => (
            <Node key={child.id} node={child} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function RoomInfoDialog({ roomId, open, onClose }: { roomId: string; open: boolean; onClose: () => void }) {
  const [tree, setTree] = useState<AgentTree | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        setTree(await api.describeAgents(roomId, controller.signal));
        setError(null);
      } catch (e) {
        if (controller.signal.aborted) return;
        setError(errorMessage(e));
      }
      if (!controller.signal.aborted) timer = setTimeout(load, REFRESH_MS);
    };
    void load();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [open, roomId]);

  return (
    <Dialog open={open} onClose={onClose} title="Room info" description="The room and its agents, live.">
      <div className="space-y-4 px-5 py-4">
        {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
        {!tree && !error && <Spinner />}
        {tree && (
          <div className="space-y-4">
            <ul aria-label="Agents" data-testid="agent-tree">
              <Node node={tree.room} depth={0} />
            </ul>
            {tree.budget && <Budgets budget={tree.budget} />}
          </div>
        )}
      </div>
    </Dialog>
  );
}
