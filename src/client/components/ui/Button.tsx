import { type ButtonHTMLAttributes, forwardRef } from "react";
import { cn } from "@/client/lib/cn";

type Variant = "primary" | "secondary" | "ghost" | "danger";
type Size = "sm" | "md";

const VARIANTS: Record<Variant, string> = {
  primary: "bg-accent text-on-fill shadow-sm hover:bg-accent-press active:brightness-90",
  secondary:
    "border border-edge-strong bg-surface text-fg-control shadow-xs hover:bg-surface-sunken active:bg-surface-2",
  ghost: "text-fg-3 hover:bg-surface-2 active:bg-surface-press",
  danger: "bg-danger-fill text-on-fill shadow-sm hover:bg-danger-fill-hover active:bg-danger-fill-press"
};

const SIZES: Record<Size, string> = {
  // Touch screens get 44 px targets (WCAG 2.5.5).
  sm: "h-8 gap-1.5 rounded-lg px-3 text-[13px] pointer-coarse:h-11 pointer-coarse:min-w-11",
  md: "h-9 gap-2 rounded-lg px-3.5 text-sm pointer-coarse:h-11 pointer-coarse:min-w-11"
};

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  size?: Size;
}

/** A button's classes, for what looks like a button but is not one (a router <Link>). */
export function buttonClass({ variant = "secondary", size = "md" }: { variant?: Variant; size?: Size } = {}) {
  return cn(
    "inline-flex shrink-0 cursor-pointer items-center justify-center font-medium whitespace-nowrap transition-colors select-none disabled:cursor-not-allowed disabled:opacity-50",
    VARIANTS[variant],
    SIZES[size]
  );
}

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { variant = "secondary", size = "md", className, type = "button", ...props },
  ref
) {
  return <button ref={ref} type={type} className={cn(buttonClass({ variant, size }), className)} {...props} />;
});

export interface IconButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Required: icon buttons have no visible text. */
  label: string;
  size?: "sm" | "md";
  tone?: "default" | "danger";
}

export const IconButton = forwardRef<HTMLButtonElement, IconButtonProps>(function IconButton(
  { label, size = "md", tone = "default", className, type = "button", title, ...props },
  ref
) {
  return (
    <button
      ref={ref}
      type={type}
      aria-label={label}
      title={title ?? label}
      className={cn(
        "inline-flex shrink-0 cursor-pointer items-center justify-center rounded-lg text-fg-muted transition-colors hover:bg-surface-2 hover:text-fg active:bg-surface-press disabled:cursor-not-allowed disabled:opacity-40",
        size === "sm" ? "size-7 [&_svg]:size-3.5" : "size-9 [&_svg]:size-[18px]",
        "pointer-coarse:size-11",
        tone === "danger" && "hover:bg-danger-bg hover:text-danger",
        className
      )}
      {...props}
    />
  );
});
