/**
 * Unread in an open room. The server keeps how far each person has read
 * (their read marks, sent to their own room-list sockets only); this hook
 * - remembers, when the room opens, where the new messages start (the
 *   "N new messages" divider and bar), before anything is marked read;
 * - tells the room `rooms_read` whenever the newest message is on screen,
 *   the page is visible and the list still counts unread messages here. The
 *   room works out the position itself; this only names the newest message
 *   shown.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { firstUnread } from "@/client/lib/first-unread";
import type { RoomMessage } from "@/client/lib/messages";
import type { RoomClientFrame } from "@/shared/protocol";
import { unreadCount } from "@/shared/unread";
import { useRoomList } from "./use-room-list";

/** A short pause before reporting, so a burst of arrivals is one report. */
const READ_REPORT_DELAY_MS = 300;

export interface NewMessagesStart {
  /** The first message that was new when the room opened. */
  messageId: string;
  /** How many were new. */
  count: number;
}

interface Options {
  roomId: string;
  messages: RoomMessage[];
  selfId: string;
  connected: boolean;
  send(data: string): void;
}

/** Whether `element` shows on screen, inside its transcript's scrolling area. */
function shows(element: Element): boolean {
  const rect = element.getBoundingClientRect();
  if (rect.width === 0 && rect.height === 0) return false;
  const area = element.closest('[role="log"]')?.getBoundingClientRect();
  const top = Math.max(area?.top ?? 0, 0);
  const bottom = Math.min(area?.bottom ?? window.innerHeight, window.innerHeight);
  return rect.bottom > top && rect.top < bottom;
}

/**
 * Whether the element `selector` finds is on screen. Checked on scroll,
 * resize and once a second (rows grow as answers stream, and a virtualised
 * list mounts and unmounts rows), never more than once a frame: a selector
 * rather than an element, because the row for a message may be replaced.
 */
function useOnScreen(selector: string | null): boolean {
  const [onScreen, setOnScreen] = useState(false);
  useEffect(() => {
    if (!selector) {
      setOnScreen(false);
      return;
    }
    let frame = 0;
    const check = () => {
      frame = 0;
      // Every match: a room kept mounted but hidden may hold the same message (a fork's copy).
      setOnScreen([...document.querySelectorAll(selector)].some(shows));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(check);
    };
    schedule();
    document.addEventListener("scroll", schedule, { capture: true, passive: true });
    window.addEventListener("resize", schedule);
    const interval = setInterval(schedule, 1_000);
    return () => {
      cancelAnimationFrame(frame);
      clearInterval(interval);
      document.removeEventListener("scroll", schedule, { capture: true });
      window.removeEventListener("resize", schedule);
    };
  }, [selector]);
  return onScreen;
}

/** Whether the reader has scrolled the transcript themselves (wheel, touch, keys in the log). */
function useReaderScrolled(): boolean {
  const [scrolled, setScrolled] = useState(false);
  useEffect(() => {
    if (scrolled) return;
    const mark = () => setScrolled(true);
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as Element | null)?.closest?.('[role="log"]')) mark();
    };
    document.addEventListener("wheel", mark, { passive: true });
    document.addEventListener("touchmove", mark, { passive: true });
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("wheel", mark);
      document.removeEventListener("touchmove", mark);
      document.removeEventListener("keydown", onKey);
    };
  }, [scrolled]);
  return scrolled;
}

function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState === "visible");
  useEffect(() => {
    const update = () => setVisible(document.visibilityState === "visible");
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  return visible;
}

const messageSelector = (id: string) => `[role="log"] [data-message-id="${CSS.escape(id)}"]`;

export function useUnread({ roomId, messages, selfId, connected, send }: Options) {
  const { rooms, readMarks } = useRoomList();
  const summary = rooms?.find((r) => r.id === roomId);
  const mark = readMarks?.get(roomId);
  const unread = readMarks && summary ? unreadCount(summary.messageCount, mark) : null;

  // ── Where the new messages started when the room opened (undefined: not known yet) ──
  const [start, setStart] = useState<NewMessagesStart | null | undefined>(undefined);
  useEffect(() => {
    if (start !== undefined || unread === null) return;
    const found = firstUnread(messages, { unread, mark }, selfId);
    setStart(found ? { messageId: messages[found.index].id, count: found.count } : null);
  }, [start, unread, mark, messages, selfId]);

  // ── Reporting what is read ──
  const newestId = messages.at(-1)?.id ?? null;
  const newestOnScreen = useOnScreen(newestId ? messageSelector(newestId) : null);
  const pageVisible = usePageVisible();
  const sendRef = useRef(send);
  sendRef.current = send;
  const lastReported = useRef<string | null>(null);
  useEffect(() => {
    if (!connected) lastReported.current = null; // a report may have been lost with the socket
  }, [connected]);
  useEffect(() => {
    if (start === undefined || !connected || !pageVisible || !newestOnScreen || !newestId || !unread) return;
    // Once per (newest message, room count, my mark): a report that moved nothing is not repeated.
    const key = `${newestId}:${summary?.messageCount}:${mark?.count ?? 0}`;
    if (lastReported.current === key) return;
    const timer = setTimeout(() => {
      lastReported.current = key;
      const frame: RoomClientFrame = { type: "rooms_read", messageId: newestId };
      try {
        sendRef.current(JSON.stringify(frame));
      } catch {
        lastReported.current = null; // not open after all: try again on reconnect
      }
    }, READ_REPORT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [start, connected, pageVisible, newestOnScreen, newestId, unread, summary?.messageCount, mark?.count]);

  // ── The bar: shown while the first new message is out of view, until it has been read or dismissed ──
  const startOnScreen = useOnScreen(start ? messageSelector(start.messageId) : null);
  const [barDone, setBarDone] = useState(false);
  const scrolledByReader = useReaderScrolled();
  useEffect(() => {
    // Only a reader's own scrolling counts as reading it: while a room opens
    // and its rows are measured, the transcript can show its top for a frame.
    if (startOnScreen && scrolledByReader) setBarDone(true);
  }, [startOnScreen, scrolledByReader]);
  const dismissBar = useCallback(() => setBarDone(true), []);

  return { start: start ?? null, showBar: !!start && !barDone && !startOnScreen, dismissBar };
}
