/**
 * What a screen reader hears about a room, in one polite status region:
 * "answering", the finished answer, stops, errors and other people's new
 * messages. The transcript itself is not live (a streamed answer would be
 * read as dozens of insertions); this hook says each thing once, when done.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { messageText, type RoomMessage } from "@/client/lib/messages";
import { authorId, authorName } from "@/shared/identity";

/** Long answers are cut: the reader can read on in the log. */
const MAX_ANNOUNCED_CHARS = 400;

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_ANNOUNCED_CHARS ? `${flat.slice(0, MAX_ANNOUNCED_CHARS)}…` : flat;
}

export interface AnnouncerInput {
  messages: RoomMessage[];
  busy: boolean;
  /** The reader's identity id: their own messages are not news to them. */
  selfId: string;
  errors: (string | null | undefined)[];
}

export function useRoomAnnouncer({ messages, busy, selfId, errors }: AnnouncerInput): string {
  const [announcement, setAnnouncement] = useState("");
  // Things that happen at once (Bob's message and the answer it starts arrive
  // in one render) are said together: one region holds one text, and a second
  // `say` in the same moment would otherwise replace the first unheard.
  const pending = useRef<string[]>([]);
  const say = useCallback((text: string) => {
    pending.current.push(text);
    if (pending.current.length > 1) return;
    queueMicrotask(() => {
      const joined = pending.current.join(" ");
      pending.current = [];
      // A repeated text is made distinct, or the region would not speak it again.
      setAnnouncement((previous) => (previous === joined ? `${joined}\u00a0` : joined));
    });
  }, []);

  // ── Answers: started, then finished, stopped or failed ──
  const wasBusy = useRef(busy);
  const lastAnswerAnnounced = useRef<string | null>(null);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on busy changes only; reads the latest messages
  useEffect(() => {
    if (busy && !wasBusy.current) say("The assistant is answering…");
    if (!busy && wasBusy.current) {
      const last = messagesRef.current.at(-1);
      if (last?.role === "assistant" && lastAnswerAnnounced.current !== last.id) {
        lastAnswerAnnounced.current = last.id;
        const meta = last.metadata ?? {};
        // A stop is said by the stop effect below, when its mark arrives.
        if (meta.error) say(`The answer failed: ${meta.error}`);
        else if (!meta.stopped) say(`Answer: ${clip(messageText(last))}`);
      }
    }
    wasBusy.current = busy;
  }, [busy]);

  // A stop is marked on the answer after it ends: say it when the mark arrives.
  const last = messages.at(-1);
  const stoppedId = last?.role === "assistant" && last.metadata?.stopped ? last.id : null;
  const stopper = stoppedId ? authorName(last?.metadata?.stoppedBy) : null;
  // undefined until the first run: a stop already in the history is not news.
  const stopAnnounced = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (stopAnnounced.current === undefined) {
      stopAnnounced.current = stoppedId;
      return;
    }
    if (!stoppedId || stopAnnounced.current === stoppedId) return;
    stopAnnounced.current = stoppedId;
    say(stopper ? `Answer stopped by ${stopper}.` : "Answer stopped.");
  }, [stoppedId, stopper, say]);

  // ── Other people's messages ──
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (!seen.current) {
      // What was there when the room opened is history, not news.
      seen.current = new Set(messages.map((m) => m.id));
      return;
    }
    const known = seen.current;
    const fresh = messages.filter((m) => !known.has(m.id));
    for (const m of fresh) known.add(m.id);
    const fromOthers = fresh.filter((m) => m.role === "user" && authorId(m.metadata?.author) !== selfId);
    if (fromOthers.length === 1) {
      const m = fromOthers[0];
      say(`New message from ${authorName(m.metadata?.author) ?? "someone"}: ${clip(messageText(m))}`);
    } else if (fromOthers.length > 1) {
      say(`${fromOthers.length} new messages.`);
    }
  }, [messages, selfId, say]);

  // ── Errors ──
  const errorKey = errors.filter(Boolean).join("\n");
  useEffect(() => {
    if (errorKey) say(`Error: ${errorKey}`);
  }, [errorKey, say]);

  return announcement;
}
