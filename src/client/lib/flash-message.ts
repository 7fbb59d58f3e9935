/**
 * Draws the eye to a message the reader asked to see (a reply's quote
 * chip): once its row is rendered, it is highlighted for a moment
 * (`data-flash`, styles.css) and focused, so keyboard and screen-reader
 * users land on it too. The transcript renders only the rows near the view,
 * so the row may appear a few frames after the scroll; past that, nothing
 * happens.
 */
const FLASH_MS = 2_000;
const MAX_FRAMES = 30;

export function flashMessage(container: HTMLElement | null, messageId: string, frames = MAX_FRAMES): void {
  if (!container) return;
  const row = container.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(messageId)}"]`);
  if (!row) {
    if (frames > 0) requestAnimationFrame(() => flashMessage(container, messageId, frames - 1));
    return;
  }
  row.dataset.flash = "";
  row.focus({ preventScroll: true });
  setTimeout(() => delete row.dataset.flash, FLASH_MS);
}
