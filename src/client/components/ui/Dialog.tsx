/**
 * Modal dialog on the native <dialog> element: focus is trapped and
 * restored by the browser, Esc closes it, the page behind is inert.
 *
 * The children mount when the dialog opens and unmount when it closes, so a
 * form inside starts from its props every time it opens: keep a form's state
 * in a component rendered as the dialog's child (initial state from props),
 * never in an effect that copies props into state on open.
 */
import { X } from "lucide-react";
import { type ReactNode, useEffect, useId, useRef } from "react";
import { cn } from "@/client/lib/cn";
import { Button, IconButton } from "./Button";
import { Spinner } from "./Spinner";

/** Dialogs open now: page-wide shortcuts stand aside while any is (a dialog handles its own keys). */
let openDialogs = 0;
export const anyDialogOpen = () => openDialogs > 0;

export interface DialogProps {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  className?: string;
  /** Right-hand sheet instead of a centred dialog. */
  variant?: "center" | "sheet";
}

export function Dialog({ open, onClose, title, description, children, className, variant = "center" }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // showModal focuses the first focusable element (the close button);
      // dialogs that are about one field mark it with data-autofocus.
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    openDialogs += 1;
    return () => {
      openDialogs -= 1;
    };
  }, [open]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener("cancel", onCancel);
    return () => dialog.removeEventListener("cancel", onCancel);
  }, []);

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the click closes on the backdrop; the keyboard has Escape, which <dialog> handles itself
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onClick={(event) => {
        // A click on the backdrop lands on the <dialog> itself.
        if (event.target === ref.current) onClose();
      }}
      className={cn(
        "bg-transparent p-0 text-fg backdrop:animate-fade-in open:flex",
        variant === "center" && "m-auto w-[calc(100%-2rem)] max-w-lg",
        variant === "sheet" && "my-0 mr-0 ml-auto h-dvh max-h-dvh w-full max-w-md",
        className
      )}
    >
      {open && (
        <div
          className={cn(
            "flex w-full flex-col overflow-hidden bg-surface shadow-2xl ring-1 ring-hairline",
            variant === "center" && "max-h-[85dvh] animate-pop-in rounded-2xl",
            variant === "sheet" && "h-full animate-fade-in"
          )}
        >
          <header className="flex items-start gap-3 border-b border-edge-quiet px-5 pt-4 pb-3.5">
            <div className="min-w-0 flex-1">
              <h2 id={titleId} className="text-base font-semibold tracking-tight">
                {title}
              </h2>
              {description && (
                <p id={descriptionId} className="mt-0.5 text-sm text-fg-muted">
                  {description}
                </p>
              )}
            </div>
            <IconButton
              label="Close dialog"
              size="sm"
              className="-mr-1.5 size-8 pointer-coarse:size-11"
              onClick={onClose}
            >
              <X />
            </IconButton>
          </header>
          <div className="min-h-0 flex-1 overflow-y-auto">{children}</div>
        </div>
      )}
    </dialog>
  );
}

function DialogFooter({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div
      className={cn(
        "sticky bottom-0 flex flex-wrap items-center justify-end gap-2 border-t border-edge-quiet bg-surface px-5 py-3.5",
        className
      )}
    >
      {children}
    </div>
  );
}

/**
 * The usual footer: Cancel, then the dialog's one action, which shows a
 * spinner while it runs. Without `onAction` the action submits the form the
 * footer sits in.
 */
export function DialogActions({
  label,
  onCancel,
  onAction,
  pending = false,
  disabled = false,
  tone = "primary",
  autoFocusCancel = false
}: {
  label: string;
  onCancel: () => void;
  onAction?: () => void;
  pending?: boolean;
  disabled?: boolean;
  tone?: "primary" | "danger";
  /** Destructive dialogs start on Cancel. */
  autoFocusCancel?: boolean;
}) {
  return (
    <DialogFooter>
      <Button variant="ghost" onClick={onCancel} data-autofocus={autoFocusCancel || undefined}>
        Cancel
      </Button>
      <Button variant={tone} type={onAction ? "button" : "submit"} onClick={onAction} disabled={pending || disabled}>
        {pending && <Spinner className="[&_svg]:size-3.5" />}
        {label}
      </Button>
    </DialogFooter>
  );
}
