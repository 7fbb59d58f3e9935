import type { KeyboardEvent as ReactKeyboardEvent } from "react";

/**
 * Keeps Tab inside a modal container: past the last element back to the
 * first, and the reverse. It reads the container's focusable elements: a
 * focus trap is about the DOM's tab order itself, which no React state holds.
 * `start` (the heading focused on open) counts as before the first.
 */
export function trapTab(event: ReactKeyboardEvent<HTMLElement>, start: HTMLElement | null) {
  if (event.key !== "Tab") return;
  const focusable = [
    ...event.currentTarget.querySelectorAll<HTMLElement>(
      'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select, [tabindex]:not([tabindex="-1"])'
    )
  ].filter((el) => el.getClientRects().length > 0);
  const first = focusable[0];
  const last = focusable.at(-1);
  if (!first || !last) return;
  const active = document.activeElement;
  if (
    event.shiftKey &&
    (active === first || !event.currentTarget.contains(active) || (start !== null && active === start))
  ) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && active === last) {
    event.preventDefault();
    first.focus();
  }
}
