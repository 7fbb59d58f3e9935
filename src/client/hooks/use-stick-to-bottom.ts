/**
 * Keeps a scroll container at its bottom while the reader is there: new
 * messages, streamed tokens, rows being measured and late-loading Markdown
 * all grow the content, and the view follows until the reader scrolls up.
 */
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

const STICK_THRESHOLD_PX = 80;

export function useStickToBottom(
  scrollRef: RefObject<HTMLElement | null>,
  contentRef: RefObject<HTMLElement | null>,
  /** Bumped by the composer on send: scroll to the bottom and stick. */
  stickSignal: number
) {
  const stickRef = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  const scrollToBottom = useCallback(
    (smooth = false) => {
      const el = scrollRef.current;
      if (!el) return;
      stickRef.current = true;
      setAtBottom(true);
      // Far away, the rows in between are only estimated: a smooth scroll would
      // aim at a bottom that moves as they are measured and stop short. Jump,
      // and the resize observer keeps us at the bottom while they settle.
      const far = el.scrollHeight - el.scrollTop - el.clientHeight > el.clientHeight * 3;
      el.scrollTo({ top: el.scrollHeight, behavior: smooth && !far ? "smooth" : "auto" });
    },
    [scrollRef]
  );

  // Follow the content while stuck to the bottom (streaming, new messages,
  // rows measured, late-loading Markdown or highlighting changing heights).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const content = contentRef.current;
    if (!el || !content) return;
    const observer = new ResizeObserver(() => {
      if (stickRef.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(content);
    el.scrollTop = el.scrollHeight;
    return () => observer.disconnect();
  }, [scrollRef, contentRef]);

  useEffect(() => {
    if (stickSignal > 0) scrollToBottom();
  }, [stickSignal, scrollToBottom]);

  /** From the container's scroll handler: the reader left or reached the bottom. */
  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const stuck = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_THRESHOLD_PX;
    stickRef.current = stuck;
    setAtBottom(stuck);
  }, [scrollRef]);

  /** Stop following (the view is about to show something further up). */
  const release = useCallback(() => {
    stickRef.current = false;
  }, []);

  return { atBottom, scrollToBottom, onScroll, release };
}
