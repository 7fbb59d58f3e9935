import { useCallback, useEffect, useRef } from "react";
import type { RoomClientFrame } from "@/shared/protocol";

/** After this long without a keystroke, we tell the room we stopped typing. */
const TYPING_IDLE_MS = 3_000;

interface Sender {
  send(data: string): void;
}

/**
 * Typing signal for a room: `true` once when typing starts (not per
 * keystroke), `false` after TYPING_IDLE_MS of quiet, on send, or when the
 * component goes away.
 */
export function useTypingSignal(socket: Sender, connected: boolean) {
  const typingRef = useRef(false);
  const timerRef = useRef<ReturnType<typeof setTimeout> | null>(null);
  const socketRef = useRef(socket);
  socketRef.current = socket;

  const send = useCallback((typing: boolean) => {
    typingRef.current = typing;
    const frame: RoomClientFrame = { type: "rooms_typing", typing };
    try {
      socketRef.current.send(JSON.stringify(frame));
    } catch {
      // Socket not open: presence is best effort.
    }
  }, []);

  const stopTyping = useCallback(() => {
    if (timerRef.current) clearTimeout(timerRef.current);
    timerRef.current = null;
    if (typingRef.current) send(false);
  }, [send]);

  const notifyTyping = useCallback(() => {
    if (!connected) return;
    if (!typingRef.current) send(true);
    if (timerRef.current) clearTimeout(timerRef.current);
    timerRef.current = setTimeout(stopTyping, TYPING_IDLE_MS);
  }, [connected, send, stopTyping]);

  // A reconnect starts a fresh connection state on the server (not typing).
  useEffect(() => {
    if (!connected) typingRef.current = false;
  }, [connected]);

  useEffect(() => () => stopTyping(), [stopTyping]);

  return { notifyTyping, stopTyping };
}
