import { type ReactNode, useId } from "react";
import { cn } from "../../lib/cn";

export const inputClass =
  "block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-xs transition-colors placeholder:text-zinc-500 hover:border-zinc-400 focus:border-indigo-500 focus:ring-3 focus:ring-indigo-500/20 focus:outline-none disabled:opacity-60 aria-invalid:border-red-500 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100 dark:placeholder:text-zinc-500 dark:hover:border-zinc-600 dark:focus:border-indigo-400";

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
        <label htmlFor={id} className="text-sm font-medium text-zinc-800 dark:text-zinc-200">
          {label}
        </label>
        {counter && <span className="text-xs text-zinc-500 tabular-nums dark:text-zinc-400">{counter}</span>}
      </div>
      {children({ id, "aria-describedby": describedBy, "aria-invalid": error ? true : undefined })}
      {hint && (
        <p id={hintId} className="text-xs text-zinc-500 dark:text-zinc-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
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
        "inline-flex h-5 min-w-5 items-center justify-center rounded border border-zinc-300 bg-zinc-50 px-1 font-sans text-[11px] font-medium text-zinc-600 shadow-[0_1px_0] shadow-zinc-300 dark:border-zinc-700 dark:bg-zinc-800 dark:text-zinc-300 dark:shadow-zinc-700",
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
      <p role="alert" className={cn("text-sm text-red-700 dark:text-red-300", className)}>
        {children}
      </p>
    );
  }
  return (
    <div
      role="alert"
      className={cn(
        "rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-200",
        className
      )}
    >
      {children}
    </div>
  );
}
