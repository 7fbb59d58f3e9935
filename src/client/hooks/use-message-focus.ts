/**
 * The transcript is one tab stop, however many messages it holds: one
 * message at a time is tabbable (the last, until the reader moves), ↑/↓
 * move between messages (Home/End to the first and last loaded, ↑ on the
 * first loads earlier ones), and a message's own controls (Copy, Edit, a
 * link in an answer, a code block's Copy) are reached from it with → or
 * Enter, walked with ←/→, and left with Escape. Tab from anywhere in a
 * message goes on to what follows the transcript (the composer).
 *
 * Everything focusable inside a message is taken out of the tab order as it
 * appears (Markdown streams links and code blocks in as an answer grows), so
 * no component has to know it sits in a transcript. The edit form is left
 * alone: it is where the person is typing.
 */
import {
  type FocusEvent,
  type KeyboardEvent,
  type RefObject,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState
} from "react";
import type { RoomMessage } from "@/client/lib/messages";

const FOCUSABLE = 'a[href], button, summary, input, select, textarea, [tabindex]:not([tabindex="-1"])';
const MESSAGE = "article[data-message-id]";

const messageOf = (el: Element | null) => el?.closest<HTMLElement>(MESSAGE) ?? null;

/**
 * How long a move to a message whose row is not rendered keeps at it. The
 * list is virtual: a scroll to a far message aims at an offset estimated
 * from rows never measured, the rows it lands on are measured as they
 * render, and the list's own correction can end short of the target (it
 * then rendered rows in the middle of the room and never the target's).
 */
const PENDING_FOCUS_MS = 3_000;
/** Frames between asking the list again to bring a pending message's row in. */
const PENDING_RETRY_FRAMES = 5;

const rowOf = (container: HTMLElement | null, id: string) =>
  container?.querySelector<HTMLElement>(`${MESSAGE}[data-message-id="${CSS.escape(id)}"]`) ?? null;

/** A pending move still stands: focus has not gone elsewhere (to the page itself is not the reader's choice). */
function focusStaysIn(container: HTMLElement | null) {
  const active = document.activeElement;
  return !active || active === document.body || !!container?.contains(active);
}

function focusRow(row: HTMLElement) {
  row.focus({ preventScroll: true });
  row.scrollIntoView({ block: "nearest" });
}

/** The controls inside a message, in order, as they show now. */
function controlsOf(message: HTMLElement): HTMLElement[] {
  return [...message.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => el !== message && !el.closest("form") && el.getClientRects().length > 0
  );
}

/** Takes a message's inner controls out of the tab order (not the edit form's). */
function untab(root: Element) {
  const found = root.matches(FOCUSABLE)
    ? [root, ...root.querySelectorAll(FOCUSABLE)]
    : root.querySelectorAll(FOCUSABLE);
  for (const el of found) {
    if (el.matches(MESSAGE) || !messageOf(el) || el.closest("form")) continue;
    if (el.getAttribute("tabindex") !== "-1") el.setAttribute("tabindex", "-1");
  }
}

/** A key in the transcript: between messages on a message, among its controls inside one. */
function messageKey(event: KeyboardEvent<HTMLElement>, move: (from: string, key: string) => void) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target as HTMLElement;
  const message = messageOf(target);
  if (!message || target.closest("form")) return;
  const id = message.dataset.messageId ?? "";
  if (target === message) {
    if (["ArrowUp", "ArrowDown", "Home", "End"].includes(event.key)) {
      event.preventDefault();
      move(id, event.key);
    } else if (event.key === "ArrowRight" || event.key === "Enter") {
      const first = controlsOf(message)[0];
      if (first) {
        event.preventDefault();
        first.focus();
      }
    }
    return;
  }
  // Inside a message: walk its controls, or go back to it.
  if (event.key === "Escape") {
    event.preventDefault();
    event.stopPropagation();
    message.focus();
  } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    const controls = controlsOf(message);
    const at = controls.indexOf(target);
    if (at < 0) return;
    event.preventDefault();
    const step = event.key === "ArrowRight" ? 1 : -1;
    controls[(at + step + controls.length) % controls.length].focus();
  } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
    if (target.matches("input, select, textarea, summary")) return;
    event.preventDefault();
    move(id, event.key);
  }
}

/** Inner controls leave the tab order as rows and Markdown appear. */
function useUntabbedControls(containerRef: RefObject<HTMLElement | null>) {
  useLayoutEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    untab(container);
    const observer = new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) if (node instanceof Element) untab(node);
      }
    });
    observer.observe(container, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [containerRef]);
}

/**
 * Focuses a message's row; when the virtual list has not rendered it, brings
 * it into the page and focuses it once it shows (a render that shows it
 * focuses it before the frame; a frame loop keeps asking until then).
 */
function useRowFocus(
  containerRef: RefObject<HTMLElement | null>,
  messagesRef: RefObject<RoomMessage[]>,
  scrollToIndex: (index: number) => void
) {
  /** A message to focus once its row is rendered. */
  const pendingRef = useRef<string | null>(null);
  /** The frame that checks on a pending message next. */
  const pendingFrameRef = useRef(0);
  // The reader scrolling or pointing takes over from a pending move; a room
  // hidden (<Activity> runs this cleanup) or gone drops it.
  useEffect(() => {
    const drop = () => {
      pendingRef.current = null;
      cancelAnimationFrame(pendingFrameRef.current);
    };
    const gestures = ["wheel", "pointerdown", "touchstart"] as const;
    for (const type of gestures) window.addEventListener(type, drop, { capture: true, passive: true });
    return () => {
      for (const type of gestures) window.removeEventListener(type, drop, { capture: true });
      drop();
    };
  }, []);

  /**
   * Ends the pending move if it can: dropped when focus went elsewhere,
   * done when its row is rendered (focused). True when nothing is pending after.
   */
  const settlePending = useCallback(() => {
    const id = pendingRef.current;
    if (!id) return true;
    const container = containerRef.current;
    const stays = focusStaysIn(container);
    const row = stays ? rowOf(container, id) : null;
    if (stays && !row) return false;
    pendingRef.current = null;
    if (row) focusRow(row);
    return true;
  }, [containerRef]);

  // A pending message's row appeared in a render: focus it before the frame.
  useLayoutEffect(() => {
    if (pendingRef.current && settlePending()) cancelAnimationFrame(pendingFrameRef.current);
  });

  return useCallback(
    (id: string) => {
      // Focused at once when rendered; else brought in, asking again until
      // its row shows or the time is up (PENDING_FOCUS_MS says why once is
      // not enough). A render that shows it focuses it (the layout effect).
      cancelAnimationFrame(pendingFrameRef.current);
      pendingRef.current = id;
      const giveUpAt = performance.now() + PENDING_FOCUS_MS;
      let frame = 0;
      const check = () => {
        if (pendingRef.current !== id || settlePending()) return;
        const index = messagesRef.current.findIndex((m) => m.id === id);
        if (index < 0 || performance.now() > giveUpAt) {
          pendingRef.current = null;
          return;
        }
        if (frame++ % PENDING_RETRY_FRAMES === 0) scrollToIndex(index);
        pendingFrameRef.current = requestAnimationFrame(check);
      };
      check();
    },
    [messagesRef, scrollToIndex, settlePending]
  );
}

export function useMessageFocus({
  containerRef,
  messages,
  reachedStart,
  loadOlder,
  scrollToIndex
}: {
  /** What holds the rows (rows come and go as the reader scrolls). */
  containerRef: RefObject<HTMLElement | null>;
  messages: RoomMessage[];
  reachedStart: boolean;
  loadOlder: () => Promise<void> | void;
  /** Brings a message's row into the page (the list is virtual). */
  scrollToIndex: (index: number) => void;
}) {
  /** The message that holds the tab stop, once the reader has moved; else the last. */
  const [chosenId, setChosenId] = useState<string | null>(null);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  /** ↑ on the first loaded message asked for earlier ones: move up from it once they arrive. */
  const upFromRef = useRef<string | null>(null);

  useUntabbedControls(containerRef);

  const focusRowOf = useRowFocus(containerRef, messagesRef, scrollToIndex);
  const focusMessage = useCallback(
    (id: string) => {
      setChosenId(id);
      focusRowOf(id);
    },
    [focusRowOf]
  );

  // Earlier messages arrived after ↑ on the first one: move up from it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the messages arriving is the trigger
  useLayoutEffect(() => {
    const from = upFromRef.current;
    if (!from) return;
    const list = messages.filter((m) => m.role !== "system");
    const at = list.findIndex((m) => m.id === from);
    if (at > 0) {
      upFromRef.current = null;
      focusMessage(list[at - 1].id);
    }
  }, [messages]);

  /** Moves from the message at `index` by `step` (or to an end); ↑ past the first loads earlier messages. */
  const move = (from: string, key: string) => {
    const list = messagesRef.current.filter((m) => m.role !== "system");
    const index = list.findIndex((m) => m.id === from);
    if (index < 0) return;
    if (key === "ArrowUp" && index === 0 && !reachedStart) {
      // Earlier messages first; the move happens once they are in the list (below).
      upFromRef.current = from;
      void loadOlder();
      return;
    }
    const target =
      key === "Home"
        ? 0
        : key === "End"
          ? list.length - 1
          : Math.min(list.length - 1, Math.max(0, index + (key === "ArrowDown" ? 1 : -1)));
    if (target !== index) focusMessage(list[target].id);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => messageKey(event, move);

  const onFocus = (event: FocusEvent<HTMLElement>) => {
    const message = messageOf(event.target);
    const id = message?.dataset.messageId;
    if (id && id !== chosenId) setChosenId(id);
  };

  let last: string | null = null;
  for (let i = messages.length - 1; i >= 0 && last === null; i--)
    if (messages[i].role !== "system") last = messages[i].id;
  const chosen = chosenId && messages.some((m) => m.id === chosenId) ? chosenId : last;
  return { tabStopId: chosen, onKeyDown, onFocus };
}
