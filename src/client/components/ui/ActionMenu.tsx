/**
 * A button that opens a list of actions with text (the room header's "More
 * room actions", the sidebar's "Account and help"). The popover API gives light dismiss, Escape and the top
 * layer without a library. Choosing an action that opens a dialog closes
 * the list first and leaves focus on the button, so the dialog hands focus
 * back there when it closes.
 */
import { type ReactNode, useId, useRef } from "react";
import { cn } from "@/client/lib/cn";
import { IconButton } from "./Button";

const itemClass =
  "flex w-full cursor-pointer items-center gap-2.5 rounded-lg px-2.5 py-1.5 pointer-coarse:min-h-11 text-left text-sm text-fg-control hover:bg-surface-2 focus-visible:bg-surface-2 [&_svg]:size-4 [&_svg]:shrink-0 [&_svg]:text-fg-muted";

/** Where the list opens: under the room header's right end, or above the sidebar's foot. */
const PLACEMENT = {
  header: "top-14 right-2",
  footer: "bottom-14 left-2"
} as const;

export function ActionMenu({
  label,
  icon,
  placement = "header",
  children
}: {
  label: string;
  icon: ReactNode;
  placement?: keyof typeof PLACEMENT;
  /** The items; `close` hides the list and puts focus back on its button. */
  children: (close: () => void) => ReactNode;
}) {
  const popoverId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popoverRef = useRef<HTMLDivElement>(null);
  const close = () => {
    buttonRef.current?.focus();
    popoverRef.current?.hidePopover();
  };
  return (
    <>
      <IconButton ref={buttonRef} label={label} popoverTarget={popoverId}>
        {icon}
      </IconButton>
      <div
        ref={popoverRef}
        id={popoverId}
        popover="auto"
        className={cn(
          "fixed inset-auto m-0 w-60 rounded-xl border border-edge bg-surface p-1.5 text-fg shadow-xl",
          PLACEMENT[placement]
        )}
      >
        <div className="flex flex-col gap-0.5">{children(close)}</div>
      </div>
    </>
  );
}

export function ActionMenuItem({
  icon,
  label,
  tone = "default",
  onSelect,
  refusal,
  children
}: {
  icon: ReactNode;
  /** The accessible name, when it says more than the visible text (which it must contain). */
  label?: string;
  tone?: "default" | "danger";
  onSelect: () => void;
  /**
   * Why this person may not do it ("Only the room's owner … can …"): the item
   * stays in the menu, reachable and explained (tooltip and description),
   * but does nothing.
   */
  refusal?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      aria-label={label}
      aria-disabled={refusal ? true : undefined}
      aria-description={refusal}
      title={refusal}
      onClick={refusal ? undefined : onSelect}
      className={cn(
        itemClass,
        tone === "danger" && "text-danger [&_svg]:text-danger",
        refusal && "cursor-not-allowed opacity-60"
      )}
    >
      {icon}
      <span className="min-w-0 flex-1 truncate">{children}</span>
    </button>
  );
}

export function ActionMenuLink({ icon, href, children }: { icon: ReactNode; href: string; children: ReactNode }) {
  return (
    <a className={itemClass} href={href} download>
      {icon}
      <span className="min-w-0 flex-1 truncate">{children}</span>
    </a>
  );
}
