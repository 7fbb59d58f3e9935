import { ChevronRight, Wrench } from "lucide-react";
import { memo } from "react";
import { decisionLine, mcpCallParts } from "@/client/lib/mcp-view";
import type { ToolPartView } from "@/client/lib/messages";
import { StatusLabel, type StatusTone } from "./ui/StatusLabel";

const LABELS: Record<string, string> = {
  get_current_time: "Checked the time",
  search_room_history: "Searched room history",
  search_files: "Searched the room's files",
  react: "Reacted"
};

function pretty(value: unknown): string {
  if (value === undefined) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return text.length > 4_000 ? `${text.slice(0, 4_000)}\n…` : text;
}

function status(tool: ToolPartView): { label: string; tone: StatusTone } {
  if (tool.state === "output-denied") return { label: "Denied", tone: "stopped" };
  if (tool.state === "output-error") return { label: "Failed", tone: "error" };
  if (tool.state === "output-available") {
    const output = tool.output as { error?: unknown } | undefined;
    if (output && typeof output === "object" && typeof output.error === "string")
      return { label: "Error", tone: "error" };
    return { label: "Done", tone: "ok" };
  }
  return { label: "Running…", tone: "busy" };
}

export const ToolPart = memo(function ToolPart({ tool }: { tool: ToolPartView }) {
  const s = status(tool);
  const input = pretty(tool.input);
  const output = tool.state === "output-error" ? (tool.errorText ?? "") : pretty(tool.output);
  // An "ask first" call keeps who decided (room-approvals.ts): shown without opening the part.
  const decided = decisionLine(tool.approval);
  return (
    <details className="group my-2 max-w-full overflow-hidden rounded-lg border border-edge bg-surface-well text-[13px]">
      <summary className="flex cursor-pointer list-none items-center gap-2 px-3 py-1.5 text-fg-soft select-none hover:bg-surface-2 [&::-webkit-details-marker]:hidden">
        <ChevronRight className="size-3.5 shrink-0 transition-transform group-open:rotate-90" aria-hidden="true" />
        <Wrench className="size-3.5 shrink-0 text-fg-faint" aria-hidden="true" />
        <span className="truncate">
          {LABELS[tool.name] ?? "Used a tool"}{" "}
          <code className="rounded bg-surface-3/70 px-1 py-px font-mono text-[12px] text-fg-3">
            {mcpCallParts(tool.name)?.tool ?? tool.name}
          </code>
        </span>
        {decided && <span className="ml-auto truncate text-xs text-fg-muted">{decided}</span>}
        <StatusLabel tone={s.tone} className={decided ? undefined : "ml-auto"}>
          {s.label}
        </StatusLabel>
      </summary>
      <div className="space-y-2 border-t border-edge px-3 py-2">
        {input && input !== "{}" && (
          <div>
            <div className="mb-1 text-[11px] font-medium tracking-wide text-fg-muted uppercase">Input</div>
            <pre className="thin-scrollbar max-h-60 overflow-auto rounded-md bg-field p-2 font-mono text-xs whitespace-pre-wrap text-fg-2">
              {input}
            </pre>
          </div>
        )}
        {output && (
          <div>
            <div className="mb-1 text-[11px] font-medium tracking-wide text-fg-muted uppercase">
              {tool.state === "output-error" ? "Error" : "Result"}
            </div>
            <pre className="thin-scrollbar max-h-60 overflow-auto rounded-md bg-field p-2 font-mono text-xs whitespace-pre-wrap text-fg-2">
              {output}
            </pre>
          </div>
        )}
        {!output && s.tone === "busy" && <p className="text-xs text-fg-muted">Waiting for the result…</p>}
      </div>
    </details>
  );
});
