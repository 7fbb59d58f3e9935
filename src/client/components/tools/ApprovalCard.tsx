/**
 * An "ask first" tool call waiting in the answer: which tool, on which
 * server, with which arguments (as text, never as markup), and Approve /
 * Deny for anyone in the room. The call reaches every browser as the
 * answer's tool part (state `approval-requested`, docs/tools.md); the
 * server's approvals list adds the server's name and who asked. The first
 * decision wins: a later one is refused (409) and the card says someone
 * else decided. Once decided, the room rewrites the part with who decided
 * and the answer goes on; until that arrives, the card says what was sent.
 */
import { ShieldQuestion } from "lucide-react";
import { memo, useContext, useEffect, useState } from "react";
import { ReactingContext } from "@/client/components/transcript/MessageReactions";
import { Button } from "@/client/components/ui/Button";
import { ErrorNotice } from "@/client/components/ui/Field";
import { Spinner } from "@/client/components/ui/Spinner";
import { StatusLabel } from "@/client/components/ui/StatusLabel";
import { ApiError, errorMessage } from "@/client/lib/api";
import { decisionLine, mcpCallParts, prettyArguments } from "@/client/lib/mcp-view";
import type { ToolPartView } from "@/client/lib/messages";
import { fullDateTime } from "@/client/lib/time";
import { toolsApi } from "@/client/lib/tools-api";
import type { ToolApproval } from "@/shared/tools";

/** Whether a tool part is an approval still to show as a card (asked, or approved and about to run). */
export const isApprovalCard = (tool: ToolPartView) =>
  tool.state === "approval-requested" || tool.state === "approval-responded";

/** The waiting call as the server lists it (its server's name, who asked, when it expires), when it can be read. */
function useListedApproval(roomId: string | undefined, toolCallId: string, waiting: boolean) {
  const [listed, setListed] = useState<ToolApproval | null>(null);
  useEffect(() => {
    if (!roomId || !waiting || !toolCallId) return;
    const controller = new AbortController();
    toolsApi.approvals(roomId, controller.signal).then(
      (list) => setListed(list.approvals.find((a) => a.toolCallId === toolCallId) ?? null),
      // Only the server's name and the deadline are missing without it: the card works from the part alone.
      () => {}
    );
    return () => controller.abort();
  }, [roomId, toolCallId, waiting]);
  return listed;
}

type Outcome =
  | { kind: "decided"; approved: boolean }
  | { kind: "taken"; message: string }
  | { kind: "error"; message: string };

export const ApprovalCard = memo(function ApprovalCard({ tool }: { tool: ToolPartView }) {
  const room = useContext(ReactingContext);
  const waiting = tool.state === "approval-requested";
  const listed = useListedApproval(room?.roomId, tool.toolCallId, waiting);
  const [pending, setPending] = useState<boolean | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const toolName = listed?.tool ?? mcpCallParts(tool.name)?.tool ?? tool.name;

  const decide = async (approved: boolean) => {
    if (!room) return;
    setPending(approved);
    setOutcome(null);
    try {
      const decided = await toolsApi.decide(room.roomId, tool.toolCallId, approved);
      setOutcome({ kind: "decided", approved: decided.decision?.approved ?? approved });
    } catch (failure) {
      const message = errorMessage(failure);
      setOutcome(
        failure instanceof ApiError && failure.status === 409 ? { kind: "taken", message } : { kind: "error", message }
      );
    } finally {
      setPending(null);
    }
  };

  const decided = decisionLine(tool.approval);
  const settled = !waiting || outcome?.kind === "decided" || outcome?.kind === "taken";
  return (
    <section
      aria-label={`Approval: ${toolName}`}
      data-approval={tool.toolCallId}
      className="my-2 max-w-full space-y-2 rounded-lg border border-warning-line bg-warning-bg px-3 py-2 text-[13px]"
    >
      <header className="flex flex-wrap items-center gap-2">
        <ShieldQuestion className="size-4 shrink-0 text-warning" aria-hidden="true" />
        <p className="min-w-0 flex-1 text-fg-2">
          The assistant asks to use <code className="font-mono text-[12px] break-all text-fg">{toolName}</code>
          {listed && (
            <>
              {" "}
              on <span className="font-medium">{listed.server}</span>
            </>
          )}
        </p>
        <StatusLabel tone={waiting ? "stopped" : "busy"}>{waiting ? "Waiting for approval" : "Running…"}</StatusLabel>
      </header>
      <div>
        <div className="mb-1 text-[11px] font-medium tracking-wide text-fg-muted uppercase">Arguments</div>
        <pre className="thin-scrollbar max-h-60 overflow-auto rounded-md bg-field p-2 font-mono text-xs whitespace-pre-wrap text-fg-2">
          {prettyArguments(tool.input)}
        </pre>
      </div>
      {listed && (
        <p className="text-xs text-fg-muted">
          {listed.askedBy ? `Answering ${listed.askedBy.name}. ` : ""}Denied by itself if nobody decides by{" "}
          {fullDateTime(listed.expiresAt)}.
        </p>
      )}
      {waiting && room && !settled && (
        <div className="flex flex-wrap items-center gap-2">
          <Button
            size="sm"
            variant="primary"
            disabled={pending !== null}
            aria-label={`Approve ${toolName}`}
            onClick={() => void decide(true)}
          >
            {pending === true && <Spinner className="[&_svg]:size-3.5" />}
            Approve
          </Button>
          <Button
            size="sm"
            variant="secondary"
            disabled={pending !== null}
            aria-label={`Deny ${toolName}`}
            onClick={() => void decide(false)}
          >
            {pending === false && <Spinner className="[&_svg]:size-3.5" />}
            Deny
          </Button>
        </div>
      )}
      {waiting && !room && <p className="text-xs text-fg-muted">A member of the room approves or denies this call.</p>}
      <div role="status" className="text-xs text-fg-soft empty:hidden">
        {!waiting && decided}
        {waiting &&
          outcome?.kind === "decided" &&
          (outcome.approved ? "You approved this call." : "You denied this call.")}
        {waiting && outcome?.kind === "taken" && `Someone else already decided. ${outcome.message}`}
      </div>
      {outcome?.kind === "error" && <ErrorNotice variant="inline">{outcome.message}</ErrorNotice>}
    </section>
  );
});
