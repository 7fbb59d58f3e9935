/**
 * A delegated task as a live card in the answer: what it was asked, its
 * status and steps while it runs (from the framework's agent-tool events,
 * see use-task-runs.ts), the sub-agent's work on demand, its result or why
 * it ended, and Stop while it runs. Once the run is gone (a reload, or the
 * room removed the finished task), the tool call's stored output tells the
 * same story.
 */
import { ChevronRight, Square, Waypoints } from "lucide-react";
import { memo } from "react";
import { MessageText } from "@/client/components/MessageText";
import { StatusLabel, type StatusTone } from "@/client/components/ui/StatusLabel";
import { type TaskRun, type TaskRunPart, useTaskRuns } from "@/client/hooks/use-task-runs";
import type { ToolPartView } from "@/client/lib/messages";

interface DelegateInput {
  task?: unknown;
  background?: unknown;
}

interface DelegateOutput {
  ok?: unknown;
  status?: unknown;
  result?: unknown;
  limit?: unknown;
  error?: unknown;
  background?: unknown;
}

type CardStatus = { label: string; tone: StatusTone };

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

function statusOf(tool: ToolPartView, run: TaskRun | undefined, output: DelegateOutput | undefined): CardStatus {
  if (run?.status === "running") return { label: "Running…", tone: "busy" };
  if (tool.state === "output-error") return { label: "Failed", tone: "error" };
  if (!output) {
    if (run?.status === "aborted") return { label: "Stopped", tone: "stopped" };
    if (run?.status === "completed") return { label: "Done", tone: "ok" };
    if (run) return { label: "Failed", tone: "error" };
    return { label: "Starting…", tone: "busy" };
  }
  if (str(output.limit)) return { label: "Limit reached", tone: "error" };
  if (output.status === "aborted") return { label: "Stopped", tone: "stopped" };
  if (output.ok === true && output.background === true) {
    if (run && run.status !== "completed") return { label: "Ended", tone: "error" };
    return run?.status === "completed" ? { label: "Done", tone: "ok" } : { label: "In the background", tone: "busy" };
  }
  if (output.ok === true) return { label: "Done", tone: "ok" };
  return { label: output.status === "refused" ? "Refused" : "Failed", tone: "error" };
}

function stepsOf(parts: readonly TaskRunPart[]): number {
  return parts.filter((part) => part.type === "step-start").length;
}

function WorkPart({ part }: { part: TaskRunPart }) {
  if (part.type === "text") {
    return part.text ? (
      <div className="text-fg-2">
        <MessageText text={part.text} streaming={false} />
      </div>
    ) : null;
  }
  if (part.type.startsWith("tool-")) {
    return (
      <p className="text-fg-muted">
        Used <code className="font-mono text-[12px]">{part.type.slice("tool-".length)}</code>
      </p>
    );
  }
  return null;
}

export const TaskCard = memo(function TaskCard({ tool }: { tool: ToolPartView }) {
  const { runsFor, stop } = useTaskRuns();
  const run = runsFor(tool.toolCallId).at(-1);
  const input = (tool.input ?? {}) as DelegateInput;
  const output = tool.state === "output-available" ? (tool.output as DelegateOutput | undefined) : undefined;
  const status = statusOf(tool, run, output);
  const asked = str(input.task) ?? "";
  const steps = run ? stepsOf(run.parts) : 0;
  const ending =
    tool.state === "output-error"
      ? tool.errorText
      : (str(output?.limit) ?? (output?.ok === true ? undefined : (str(output?.error) ?? run?.error)));
  const result = str(output?.result) ?? run?.summary;
  // The result is shown once, below; the work lists what led to it (the text
  // that is the result is not repeated there).
  const work =
    run?.parts.filter(
      (part) =>
        (part.type === "text" && part.text.trim() !== result?.trim()) ||
        (part.type !== "text" && part.type.startsWith("tool-"))
    ) ?? [];

  return (
    <section
      aria-label="Delegated task"
      data-task-status={status.label}
      className="my-2 max-w-full overflow-hidden rounded-lg border border-accent-edge bg-accent-bg/40 text-[13px]"
    >
      <div className="flex items-start gap-2 px-3 py-2">
        <Waypoints className="mt-0.5 size-3.5 shrink-0 text-accent-line" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <p className="font-medium text-fg-control">
            {input.background === true ? "Background task" : "Delegated task"}
          </p>
          <p className="line-clamp-3 break-words text-fg-soft">{asked}</p>
        </div>
        <StatusLabel tone={status.tone}>
          <span role="status">{status.label}</span>
          {steps > 0 && <span className="text-fg-muted">· {steps === 1 ? "1 step" : `${steps} steps`}</span>}
        </StatusLabel>
        {run?.status === "running" && (
          <button
            type="button"
            onClick={() => stop(run.runId)}
            className="inline-flex min-h-8 shrink-0 cursor-pointer items-center gap-1 rounded-md border border-edge-strong bg-surface px-2 text-xs text-fg-control hover:bg-surface-2"
          >
            <Square className="size-3 fill-current" aria-hidden="true" />
            Stop task
          </button>
        )}
      </div>
      {work.length > 0 && (
        <details className="group border-t border-accent-edge">
          <summary className="flex cursor-pointer list-none items-center gap-1.5 px-3 py-1.5 text-fg-soft select-none hover:bg-accent-bg [&::-webkit-details-marker]:hidden">
            <ChevronRight className="size-3.5 shrink-0 transition-transform group-open:rotate-90" aria-hidden="true" />
            The task's work
          </summary>
          <div className="thin-scrollbar max-h-72 space-y-1 overflow-auto px-3 pb-2">
            {work.map((part, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a run's parts are only ever appended
              <WorkPart key={index} part={part} />
            ))}
          </div>
        </details>
      )}
      {(ending || result) && (
        <div className="border-t border-accent-edge px-3 py-2">
          {ending ? (
            <p className="text-danger-strong">{ending}</p>
          ) : (
            <div className="text-fg-2" data-task-result>
              <MessageText text={result ?? ""} streaming={false} />
            </div>
          )}
        </div>
      )}
    </section>
  );
});
