/** What the room asks of its transcript (the "N new messages" bar): no DOM queries from outside. */
export interface MessageListHandle {
  /** Scrolls a loaded message (with the dividers before it) to the top of the view; false when it is not loaded. */
  showMessage(messageId: string): boolean;
  /** Focuses the transcript itself, without scrolling. */
  focus(): void;
}
