/** What the room asks of its transcript (the "N new messages" bar, quote chips): no DOM queries from outside. */
export interface MessageListHandle {
  /**
   * Scrolls a loaded message (with the dividers before it) to the top of the view, and with
   * `highlight` marks it for a moment and focuses it (lib/flash-message.ts); false when it is not loaded.
   */
  showMessage(messageId: string, options?: { highlight?: boolean }): boolean;
  /** Focuses the transcript itself, without scrolling. */
  focus(): void;
}
