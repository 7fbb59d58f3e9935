/**
 * The room's outbox: every message this browser sends goes through it.
 *
 * - A send is queued (and kept in localStorage, so a reload or a server
 *   restart loses nothing) and goes out at once when the room is connected,
 *   later when it reconnects: the composer never waits for the network.
 * - Sends leave one at a time, in order: the next goes only after the room
 *   acknowledged the previous one as stored (`rooms_ack`).
 * - Each send carries a client message id that the room stores at most once,
 *   so resending after a dropped connection cannot duplicate a message.
 *
 * Sends go as raw chat frames rather than through useAgentChat's
 * `sendMessage`: the AI SDK chat allows one request of its own at a time and
 * would make a second send wait for (or trample) the answer streaming now.
 * Sent raw, our answer streams to us as it does to everyone else in the room,
 * through the chat hook's observer path, and the room answers in turn.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { MAX_FILES_PER_MESSAGE, MAX_MESSAGE_LENGTH } from "@/shared/constants";
import { FILE_URL_PATTERN, type FileRef } from "@/shared/files";
import { MessageAuthor } from "@/shared/identity";
import { CLIENT_MESSAGE_ID_PATTERN, type OutboxSend, outboxRequestFrame } from "@/shared/outbox";
import { type ReplyRef, readReplyRef } from "@/shared/replies";

export interface OutboxItem extends OutboxSend {
  /** Who wrote it, for showing it before the room's copy arrives (the room writes its own). */
  author?: MessageAuthor;
  /** Why the room refused it; a refused item waits for Retry or Discard. */
  error?: string;
}

const storageKey = (roomId: string) => `rooms.outbox.v1.${roomId}`;

function isOutboxItem(value: unknown): value is OutboxItem {
  if (typeof value !== "object" || value === null) return false;
  const item = value as Record<string, unknown>;
  return (
    typeof item.id === "string" &&
    CLIENT_MESSAGE_ID_PATTERN.test(item.id) &&
    typeof item.text === "string" &&
    item.text.length <= MAX_MESSAGE_LENGTH &&
    typeof item.createdAt === "number" &&
    (item.author === undefined || MessageAuthor.safeParse(item.author).success) &&
    (item.error === undefined || typeof item.error === "string") &&
    (item.replyTo === undefined || readReplyRef(item.replyTo) !== undefined) &&
    (item.files === undefined ||
      (Array.isArray(item.files) &&
        item.files.length <= MAX_FILES_PER_MESSAGE &&
        item.files.every((f) => typeof f?.url === "string" && FILE_URL_PATTERN.test(f.url))))
  );
}

function readOutbox(roomId: string): OutboxItem[] {
  try {
    const raw = JSON.parse(localStorage.getItem(storageKey(roomId)) ?? "[]");
    return Array.isArray(raw) ? raw.filter(isOutboxItem) : [];
  } catch {
    return []; // unreadable storage: nothing queued
  }
}

function writeOutbox(roomId: string, items: OutboxItem[]) {
  try {
    if (items.length === 0) localStorage.removeItem(storageKey(roomId));
    else localStorage.setItem(storageKey(roomId), JSON.stringify(items));
  } catch (error) {
    // Storage full or blocked: the queue still lives in memory for this tab.
    console.warn("[outbox] could not persist the outbox:", error);
  }
}

/** A new send, under a new client message id. */
function newItem(text: string, author: MessageAuthor, files: FileRef[], replyTo: ReplyRef | undefined): OutboxItem {
  return {
    id: crypto.randomUUID(),
    text,
    author,
    createdAt: Date.now(),
    ...(files.length > 0 ? { files } : {}),
    ...(replyTo ? { replyTo } : {})
  };
}

interface OutboxSocket {
  status: string;
  onFrame(listener: (data: string) => void): () => void;
  sendFrame(data: string): void;
}

export function useOutbox(
  roomId: string,
  socket: OutboxSocket,
  /** Called once per item when the room has stored it. */
  onStored: (item: OutboxItem) => void
) {
  const [items, setItems] = useState<OutboxItem[]>(() => readOutbox(roomId));
  const itemsRef = useRef(items);
  /** The item on the wire and the request id it went with. */
  const inFlightRef = useRef<{ id: string; requestId: string } | null>(null);
  const onStoredRef = useRef(onStored);
  onStoredRef.current = onStored;
  const { onFrame, sendFrame } = socket;
  const open = socket.status === "open";

  const update = useCallback(
    (next: (items: OutboxItem[]) => OutboxItem[]) => {
      const value = next(itemsRef.current);
      itemsRef.current = value;
      writeOutbox(roomId, value);
      setItems(value);
    },
    [roomId]
  );

  const pump = useCallback(() => {
    if (inFlightRef.current || !open) return;
    const head = itemsRef.current[0];
    if (!head || head.error) return;
    const requestId = crypto.randomUUID();
    inFlightRef.current = { id: head.id, requestId };
    sendFrame(outboxRequestFrame(requestId, head));
  }, [open, sendFrame]);

  // A dropped connection loses whatever was on the wire: send it again on
  // reconnect (the room ignores a copy it already stored).
  useEffect(() => {
    if (!open) inFlightRef.current = null;
    else pump();
  }, [open, pump]);

  useEffect(
    () =>
      onFrame((data) => {
        const inFlight = inFlightRef.current;
        if (!inFlight) return;
        if (!data.includes(inFlight.id) && !data.includes(inFlight.requestId)) return;
        let frame: { type?: string; clientMessageId?: string; id?: string; error?: boolean; body?: string };
        try {
          frame = JSON.parse(data);
        } catch {
          return;
        }
        if (frame.type === "rooms_ack" && frame.clientMessageId === inFlight.id) {
          const stored = itemsRef.current.find((item) => item.id === inFlight.id);
          inFlightRef.current = null;
          update((list) => list.filter((item) => item.id !== inFlight.id));
          if (stored) onStoredRef.current(stored);
          queueMicrotask(pump);
        } else if (frame.type === "cf_agent_use_chat_response" && frame.id === inFlight.requestId && frame.error) {
          // Refused (rate limit, room full, …): keep it, say why, wait for the person.
          inFlightRef.current = null;
          const reason = typeof frame.body === "string" && frame.body ? frame.body : "The room refused this message.";
          update((list) => list.map((item) => (item.id === inFlight.id ? { ...item, error: reason } : item)));
        }
      }),
    [onFrame, update, pump]
  );

  const enqueue = useCallback(
    (text: string, author: MessageAuthor, files: FileRef[] = [], replyTo?: ReplyRef) => {
      update((list) => [...list, newItem(text, author, files, replyTo)]);
      queueMicrotask(pump);
    },
    [update, pump]
  );

  const retry = useCallback(
    (id: string) => {
      update((list) => list.map((item) => (item.id === id ? { ...item, error: undefined } : item)));
      queueMicrotask(pump);
    },
    [update, pump]
  );

  const discard = useCallback(
    (id: string) => {
      if (inFlightRef.current?.id === id) return;
      update((list) => list.filter((item) => item.id !== id));
      queueMicrotask(pump);
    },
    [update, pump]
  );

  return { items, enqueue, retry, discard };
}

export type Outbox = ReturnType<typeof useOutbox>;
