/**
 * An icon button that opens a popover under the room header (the export menu,
 * the phone's "More room actions"). The popover API gives light dismiss,
 * Escape and the top layer without a library; nested ones (the export menu
 * inside "More") stay open together because the inner one's invoker lives in
 * the outer one.
 */
import { type ReactNode, useId } from "react";
import { cn } from "@/client/lib/cn";
import { IconButton } from "./Button";

export function HeaderPopover({
  label,
  icon,
  className,
  children
}: {
  label: string;
  icon: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const popoverId = useId();
  return (
    <>
      <IconButton label={label} popoverTarget={popoverId}>
        {icon}
      </IconButton>
      <div
        id={popoverId}
        popover="auto"
        className={cn(
          "fixed inset-auto top-14 right-2 m-0 rounded-xl border border-edge bg-surface p-1.5 text-fg shadow-xl",
          className
        )}
      >
        {children}
      </div>
    </>
  );
}
