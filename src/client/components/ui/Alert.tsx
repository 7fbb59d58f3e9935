import type { HTMLAttributes, ReactNode } from "react";
import { cn } from "@/client/lib/cn";

const toneClass = {
  error: "border-danger-line bg-danger-bg text-danger-fg",
  warning: "border-warning-line bg-warning-bg text-warning-fg",
  info: "border-edge bg-surface-sunken text-fg-3"
} as const;

/**
 * A boxed notice in one of three tones. Errors interrupt (`role="alert"`);
 * warnings and information do not, so callers pick the role that fits
 * (`note` for a fixed fact, `status` for something that changed), or none
 * (`silent`, where the room's status region already speaks for it). `action`
 * sits at the end (Retry, Dismiss).
 */
export function Alert({
  tone,
  icon,
  action,
  role = tone === "error" ? "alert" : undefined,
  silent = false,
  className,
  children,
  ...rest
}: Omit<HTMLAttributes<HTMLDivElement>, "role"> & {
  tone: keyof typeof toneClass;
  icon?: ReactNode;
  action?: ReactNode;
  role?: "alert" | "status" | "note";
  silent?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div
      {...rest}
      role={silent ? undefined : role}
      className={cn("flex gap-2 rounded-lg border px-3 py-2 text-sm", toneClass[tone], className)}
    >
      {icon}
      <div className="min-w-0 flex-1 break-words">{children}</div>
      {action}
    </div>
  );
}
