import { type ReactNode, useId } from "react";
import { cn } from "@/client/lib/cn";
import { Alert } from "./Alert";

export const inputClass =
  "block w-full rounded-lg border border-edge-strong bg-field px-3 py-2 text-sm text-fg shadow-xs transition-colors placeholder:text-fg-muted hover:border-edge-hover focus:border-accent-line focus:ring-3 focus:ring-accent-line/20 focus:outline-none disabled:opacity-60 aria-invalid:border-danger";

export function Field({
  label,
  hint,
  error,
  children,
  className,
  counter
}: {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  counter?: ReactNode;
  className?: string;
  children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode;
}) {
  const id = useId();
  const hintId = useId();
  const errorId = useId();
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cn("space-y-1.5", className)}>
      <div className="flex items-baseline justify-between gap-2">
        <label htmlFor={id} className="text-sm font-medium text-fg-2">
          {label}
        </label>
        {counter && <span className="text-xs text-fg-muted tabular-nums">{counter}</span>}
      </div>
      {children({ id, "aria-describedby": describedBy, "aria-invalid": error ? true : undefined })}
      {hint && (
        <p id={hintId} className="text-xs text-fg-muted">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} role="alert" className="text-xs font-medium text-danger">
          {error}
        </p>
      )}
    </div>
  );
}

export function Kbd({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <kbd
      className={cn(
        "inline-flex h-5 min-w-5 items-center justify-center rounded border border-edge-strong bg-surface-sunken px-1 font-sans text-[11px] font-medium text-fg-soft shadow-[0_1px_0] shadow-edge-strong",
        className
      )}
    >
      {children}
    </kbd>
  );
}

/**
 * The one way the client shows an error: a boxed notice (`box`, in forms and
 * dialogs) or a line of text in place (`inline`, in panels and lists). The
 * text is the server's own message, read with the shared schema (lib/api.ts).
 */
export function ErrorNotice({
  children,
  className,
  variant = "box"
}: {
  children: ReactNode;
  className?: string;
  variant?: "box" | "inline";
}) {
  if (variant === "inline") {
    return (
      <p role="alert" className={cn("text-sm text-danger-strong", className)}>
        {children}
      </p>
    );
  }
  return (
    <Alert tone="error" className={className}>
      {children}
    </Alert>
  );
}
