/**
 * An answer's trace as a waterfall (GET /api/rooms/:id/traces/:traceId):
 * the request, its queue wait, the turn, each model call (time to first
 * token, tokens per second) and each tool or persona as its own bar.
 */
import { Activity } from "lucide-react";
import { useEffect, useState } from "react";
import { useParams } from "react-router";
import { ApiError, api, errorMessage } from "@/client/lib/api";
import { cn } from "@/client/lib/cn";
import { layoutWaterfall } from "@/client/lib/waterfall";
import type { TraceSpan } from "@/shared/traces";
import { IconButton } from "./ui/Button";
import { Dialog } from "./ui/Dialog";
import { ErrorNotice } from "./ui/Field";
import { Spinner } from "./ui/Spinner";

/*
 * A chart's categorical palette, one hue per kind of span: raw palette
 * classes on purpose (these are data colours, not UI roles, and appear
 * nowhere else), legible on both themes' surfaces.
 */
const BAR: Record<TraceSpan["kind"], string> = {
  request: "bg-zinc-400 dark:bg-zinc-500",
  queue: "bg-amber-400",
  turn: "bg-indigo-500",
  model: "bg-sky-500",
  tool: "bg-emerald-500",
  agent: "bg-fuchsia-500"
};

function ms(value: number | null): string {
  if (value === null) return "—";
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

function TraceWaterfall({
  roomId,
  traceId,
  open,
  onClose
}: {
  roomId: string;
  traceId: string;
  open: boolean;
  onClose: () => void;
}) {
  const [spans, setSpans] = useState<TraceSpan[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Mounted only while open (TraceButton), so this asks once per opening.
  useEffect(() => {
    let cancelled = false;
    api
      .getTrace(roomId, traceId)
      .then((trace) => {
        if (!cancelled) setSpans(trace.spans);
      })
      .catch((e: unknown) => {
        if (!cancelled) setError(e instanceof ApiError ? e.message : errorMessage(e));
      });
    return () => {
      cancelled = true;
    };
  }, [roomId, traceId]);

  const waterfall = spans ? layoutWaterfall(spans) : null;
  return (
    <Dialog open={open} onClose={onClose} title="Trace of this answer" description={<code>{traceId}</code>}>
      <div className="px-5 py-4">
        {error && <ErrorNotice variant="inline">{error}</ErrorNotice>}
        {!error && !waterfall && <Spinner />}
        {waterfall && (
          <div className="space-y-3" data-testid="trace-waterfall">
            <dl className="grid grid-cols-2 gap-2 text-xs sm:grid-cols-4">
              {[
                ["Total", ms(waterfall.totalMs)],
                ["Queue wait", ms(waterfall.queueMs)],
                ["First token", ms(waterfall.timeToFirstTokenMs)],
                ["Tokens/s", waterfall.tokensPerSecond === null ? "—" : waterfall.tokensPerSecond.toFixed(1)]
              ].map(([label, value]) => (
                <div key={label} className="rounded-md bg-surface-soft px-2 py-1.5">
                  <dt className="text-fg-muted">{label}</dt>
                  <dd className="font-medium tabular-nums text-fg" data-figure={label}>
                    {value}
                  </dd>
                </div>
              ))}
            </dl>
            <ol className="space-y-1" aria-label="Spans">
              {waterfall.rows.map(({ span, depth, left, width, durationMs }) => (
                <li
                  key={span.spanId}
                  data-span-kind={span.kind}
                  data-span-status={span.status}
                  className="grid grid-cols-[minmax(0,14rem)_1fr_4.5rem] items-center gap-2 text-xs"
                >
                  <span
                    className="truncate text-fg-3"
                    style={{ paddingLeft: `${depth * 0.75}rem` }}
                    title={`${span.name} (${span.status}${span.errorCode ? `, ${span.errorCode}` : ""})`}
                  >
                    {span.name}
                    {span.status !== "ok" && (
                      <span
                        className={cn(
                          "ml-1 rounded px-1 text-[10px]",
                          span.status === "error" ? "bg-danger-tint text-danger-strong" : "bg-warning-tint text-warning"
                        )}
                      >
                        {span.errorCode ?? span.status}
                      </span>
                    )}
                  </span>
                  <span className="relative h-3 rounded bg-surface-2" aria-hidden="true">
                    <span
                      className={cn("absolute inset-y-0 rounded", BAR[span.kind])}
                      style={{ left: `${left * 100}%`, width: `max(2px, ${width * 100}%)` }}
                    />
                  </span>
                  <span className="text-right tabular-nums text-fg-muted">{ms(durationMs)}</span>
                </li>
              ))}
            </ol>
          </div>
        )}
      </div>
    </Dialog>
  );
}

/** The answer's "Show trace" action: one click from the answer to its waterfall. */
export function TraceButton({ traceId }: { traceId: string }) {
  const { roomId = "" } = useParams();
  const [open, setOpen] = useState(false);
  return (
    <>
      <IconButton size="sm" label="Show trace" onClick={() => setOpen(true)}>
        <Activity />
      </IconButton>
      {open && <TraceWaterfall roomId={roomId} traceId={traceId} open={open} onClose={() => setOpen(false)} />}
    </>
  );
}
