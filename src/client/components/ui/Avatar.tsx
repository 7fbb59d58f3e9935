import { Sparkles } from "lucide-react";
import { cn } from "@/client/lib/cn";
import { avatarColor, initials } from "@/client/lib/messages";

export function Avatar({
  name,
  seed,
  size = "md",
  className
}: {
  name: string;
  /** What the colour comes from: the person's identity id (their name when absent). */
  seed?: string;
  size?: "xs" | "sm" | "md";
  className?: string;
}) {
  return (
    <span
      aria-hidden="true"
      // The initials are drawn, not written: as text they would be part of a
      // button's visible label that its accessible name does not contain.
      data-initials={initials(name)}
      data-avatar-colour={avatarColor(seed ?? name)}
      className={cn(
        "inline-flex shrink-0 items-center justify-center rounded-full font-semibold text-on-fill select-none before:content-[attr(data-initials)]",
        avatarColor(seed ?? name),
        size === "xs" && "size-5 text-[9px]",
        size === "sm" && "size-7 text-[11px]",
        size === "md" && "size-8 text-xs",
        className
      )}
    />
  );
}

export function AssistantAvatar({ className }: { className?: string }) {
  return (
    <span
      aria-hidden="true"
      className={cn(
        "inline-flex size-8 shrink-0 items-center justify-center rounded-full bg-brand text-on-fill shadow-sm",
        className
      )}
    >
      <Sparkles className="size-4" />
    </span>
  );
}
