import { AlertTriangle, Check } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "@/client/lib/cn";
import { Spinner } from "./Spinner";

const toneClass = {
  busy: "text-fg-soft",
  ok: "text-success",
  error: "text-danger-strong",
  stopped: "text-warning"
} as const;

export type StatusTone = keyof typeof toneClass;

/** A small coloured status with its icon (a spinner while busy): tool calls and delegated tasks. */
export function StatusLabel({
  tone,
  className,
  children
}: {
  tone: StatusTone;
  className?: string;
  children: ReactNode;
}) {
  return (
    <span className={cn("inline-flex shrink-0 items-center gap-1 text-xs", toneClass[tone], className)}>
      {tone === "busy" && <Spinner className="[&_svg]:size-3" />}
      {tone === "ok" && <Check className="size-3.5" aria-hidden="true" />}
      {tone === "error" && <AlertTriangle className="size-3.5" aria-hidden="true" />}
      {children}
    </span>
  );
}
