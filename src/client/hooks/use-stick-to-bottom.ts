/**
 * Follows the conversation as chat apps do: while the reader is at the
 * bottom, new messages, streamed tokens, rows being measured, late-loading
 * Markdown and a shrinking viewport (the composer growing, the outbox
 * appearing) all keep the view at the bottom; only the reader scrolling up
 * themselves stops that, and reaching the bottom again resumes it.
 *
 * Why intent and not position: the content grows between a write of
 * `scrollTop` and the scroll event it causes (a panel adds several rows at
 * once), and the virtualizer moves `scrollTop` itself as rows are measured,
 * so neither "far from the bottom" nor "moved up" in a scroll event means the
 * reader left. The reader leaving is a wheel turned up, or the view moving up
 * during their own gesture in the log: a key, a touch, the scrollbar.
 */
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Scrolling down to within this of the bottom follows again. */
const RESUME_THRESHOLD_PX = 80;
/** How long after a key or the end of a touch the view's moves are still the reader's (momentum). */
const GESTURE_TAIL_MS = 700;

/**
 * Until when the view's moves are the reader's own: a key in the log counts
 * for a moment (momentum), a touch or the scrollbar while held and a moment
 * after. A wheel turned up is the reader leaving at once (`onWheelUp`).
 */
function useReaderGestures(scrollRef: RefObject<HTMLElement | null>, onWheelUp: () => void) {
  const gestureUntilRef = useRef(0);
  const onWheelUpRef = useRef(onWheelUp);
  onWheelUpRef.current = onWheelUp;
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0 && el.scrollTop > 0) onWheelUpRef.current();
    };
    const held = () => {
      gestureUntilRef.current = Number.POSITIVE_INFINITY;
    };
    const keyed = () => {
      gestureUntilRef.current = performance.now() + GESTURE_TAIL_MS;
    };
    const released = () => {
      if (gestureUntilRef.current === Number.POSITIVE_INFINITY) keyed();
    };
    // The scrollbar is the log itself under the pointer; a row is not.
    const onPointerDown = (event: PointerEvent) => {
      if (event.target === el) held();
    };
    const listeners: [string, EventListener][] = [
      ["wheel", onWheel as EventListener],
      ["keydown", keyed],
      ["touchstart", held],
      ["touchend", released],
      ["touchcancel", released],
      ["pointerdown", onPointerDown as EventListener]
    ];
    for (const [type, listener] of listeners) el.addEventListener(type, listener, { passive: true });
    window.addEventListener("pointerup", released);
    return () => {
      for (const [type, listener] of listeners) el.removeEventListener(type, listener);
      window.removeEventListener("pointerup", released);
    };
  }, [scrollRef]);
  return gestureUntilRef;
}

/**
 * While answers stream, a row grows inside its slot before the virtualizer
 * measures it and resizes the content (the resize observer then fires a
 * frame or more later, once per measured batch): several streams at once
 * left the view behind for a few frames at a time. So while streaming, each
 * frame also pins a following view that is off the bottom.
 */
function usePinWhileStreaming(
  scrollRef: RefObject<HTMLElement | null>,
  followingRef: RefObject<boolean>,
  pin: () => void,
  streaming: boolean
) {
  useEffect(() => {
    if (!streaming) return;
    let frame = 0;
    const tick = () => {
      const el = scrollRef.current;
      if (el && followingRef.current && el.scrollHeight - el.scrollTop - el.clientHeight > 1) pin();
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [streaming, scrollRef, followingRef, pin]);
}

export function useStickToBottom(
  scrollRef: RefObject<HTMLElement | null>,
  contentRef: RefObject<HTMLElement | null>,
  /** Bumped by the composer on send: scroll to the bottom and follow. */
  stickSignal: number,
  /** An answer streams (the room is busy): rows grow every frame. */
  streaming = false
) {
  const followingRef = useRef(true);
  const [following, setFollowingState] = useState(true);
  /** `scrollTop` and `scrollHeight` as of the last scroll event or our own write, to tell up from down. */
  const lastTopRef = useRef(0);
  const lastHeightRef = useRef(0);

  const setFollowing = useCallback((next: boolean) => {
    followingRef.current = next;
    setFollowingState(next);
  }, []);
  const gestureUntilRef = useReaderGestures(scrollRef, () => {
    if (followingRef.current) setFollowing(false);
  });

  const pin = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    lastTopRef.current = el.scrollTop;
    lastHeightRef.current = el.scrollHeight;
  }, [scrollRef]);

  const scrollToBottom = useCallback(
    (smooth = false) => {
      const el = scrollRef.current;
      if (!el) return;
      setFollowing(true);
      // Far away, the rows in between are only estimated: a smooth scroll would
      // aim at a bottom that moves as they are measured and stop short. Jump,
      // and the resize observer keeps us at the bottom while they settle.
      const far = el.scrollHeight - el.scrollTop - el.clientHeight > el.clientHeight * 3;
      if (smooth && !far) el.scrollTo({ top: el.scrollHeight, behavior: "smooth" });
      else pin();
    },
    [scrollRef, setFollowing, pin]
  );

  // Follow while following: the content growing, or the view getting shorter.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const content = contentRef.current;
    if (!el || !content) return;
    const observer = new ResizeObserver(() => {
      if (followingRef.current) pin();
    });
    observer.observe(content);
    observer.observe(el);
    // This also runs when a kept room is shown again (RoomView.tsx), and the
    // browser forgets a hidden element's scroll position: a reader who had
    // left the bottom comes back to where they were, one who followed to the bottom.
    if (followingRef.current) pin();
    else el.scrollTop = lastTopRef.current;
    return () => observer.disconnect();
  }, [scrollRef, contentRef, pin]);

  usePinWhileStreaming(scrollRef, followingRef, pin, streaming);

  useEffect(() => {
    if (stickSignal > 0) scrollToBottom();
  }, [stickSignal, scrollToBottom]);

  /** From the container's scroll handler. */
  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const top = el.scrollTop;
    const height = el.scrollHeight;
    const up = lastTopRef.current - top;
    lastTopRef.current = top;
    lastHeightRef.current = height;
    const movedUp = up > 0.5;
    const distance = height - top - el.clientHeight;
    if (distance <= 1) {
      if (!followingRef.current) setFollowing(true);
    } else if (movedUp && performance.now() < gestureUntilRef.current) {
      // Up during the reader's own gesture. Nothing else leaves: the virtualizer
      // moves scrollTop as rows are measured and lists re-anchor, by amounts no
      // rule on positions tells apart from a reader reliably.
      if (followingRef.current) setFollowing(false);
    } else if (!followingRef.current && distance < RESUME_THRESHOLD_PX) {
      setFollowing(true);
      pin();
    }
  }, [scrollRef, setFollowing, pin, gestureUntilRef]);

  /** Stop following (the view is about to show something further up). */
  const release = useCallback(() => setFollowing(false), [setFollowing]);

  return { atBottom: following, scrollToBottom, onScroll, release };
}
