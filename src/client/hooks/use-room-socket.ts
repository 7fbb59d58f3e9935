/**
 * An open room's WebSocket (a facet under the overseer): synced RoomState,
 * presence, connection status, the room's refusals, and which turn is
 * streaming (so Stop works on anyone's answer).
 *
 * The socket acts as the signed-in identity (the session cookie goes with
 * the upgrade); the server captures it at connect, so a rename reconnects.
 * A share link's viewer connects at `basePath` instead (the link's own
 * socket address), which the server routes to the one room it names.
 *
 * A member's socket asks for the room's newest page in its opening frame
 * (`?page=`): with it come the state and presence, in one round trip
 * (lib/opened-page.ts says how it meets the REST page).
 */
import { MessageType } from "@cloudflare/ai-chat/types";
import { useAgent } from "agents/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { TranscriptFrameHold } from "@/client/lib/held-transcript";
import { openedPages } from "@/client/lib/opened-page";
import { RECONNECT_OPTIONS, reconnectOnReturn } from "@/client/lib/reconnect";
import { PAGE_SIZE } from "@/client/lib/room-pages";
import { type RoomFrameEvent, readRoomFrame } from "@/client/lib/room-socket-frames";
import { DEFAULT_WORKSPACE } from "@/shared/constants";
import type { Identity } from "@/shared/identity";
import type { MessagePage, PresenceUser, RoomState } from "@/shared/protocol";
import type { ConnectionStatus } from "./use-room-list";

/**
 * Which turn streams in the room right now, whoever started it: chat turns
 * from the framework's response frames, persona and panel turns from the
 * room's `rooms_turn` frames (they stream outside the chat hook's view, so
 * this is how we know to offer Stop).
 */
function useActiveTurn() {
  /** The chat turn streaming in this room right now, whoever started it. */
  const activeTurnRef = useRef<string | null>(null);
  const [liveTurn, setLiveTurn] = useState<string | null>(null);
  const ended = useCallback((id: string) => {
    if (activeTurnRef.current === id) activeTurnRef.current = null;
    setLiveTurn((current) => (current === id ? null : current));
  }, []);
  const onTurnFrame = useCallback(
    (event: RoomFrameEvent) => {
      if (event.kind === "chat-streaming") activeTurnRef.current = event.id;
      else if (event.kind === "chat-ended") ended(event.id);
      else if (event.kind === "turn" && event.running) {
        activeTurnRef.current = event.requestId;
        setLiveTurn(event.requestId);
      } else if (event.kind === "turn") ended(event.requestId);
    },
    [ended]
  );
  // The room greets us with the turn still running when we are back.
  const reset = useCallback(() => setLiveTurn(null), []);
  return { activeTurnRef, liveTurnRunning: liveTurn !== null, onTurnFrame, reset };
}

/**
 * The room knows us by the identity captured at connect: after a rename,
 * connect again so presence and new messages carry the new name.
 */
function useReconnectOnRename(agent: { reconnect(): void }, name: string) {
  const connectedName = useRef(name);
  useEffect(() => {
    if (connectedName.current === name) return;
    connectedName.current = name;
    agent.reconnect();
  }, [name, agent]);
}

/** Raw text frames, for hooks that speak their own part of the protocol (the outbox). */
function useFrameListeners() {
  const listenersRef = useRef(new Set<(data: string) => void>());
  const deliver = useCallback((data: string) => {
    for (const listener of listenersRef.current) listener(data);
  }, []);
  const subscribe = useCallback((listener: (data: string) => void) => {
    listenersRef.current.add(listener);
    return () => {
      listenersRef.current.delete(listener);
    };
  }, []);
  return { deliver, subscribe };
}

/** This connection's opening page, and who wants each one (the transcript, to catch up on a reconnect). */
function useOpeningPages() {
  const latestRef = useRef<MessagePage | null>(null);
  const listenersRef = useRef(new Set<(page: MessagePage) => void>());
  const arrived = useCallback((page: MessagePage) => {
    latestRef.current = page;
    for (const listener of listenersRef.current) listener(page);
  }, []);
  const closed = useCallback(() => {
    latestRef.current = null;
  }, []);
  /**
   * Every opening page this socket gets from now on, starting with the
   * current connection's if it came already: the room as it was when the
   * socket (re)joined, for catching up on what it missed while away.
   */
  const subscribe = useCallback((listener: (page: MessagePage) => void) => {
    listenersRef.current.add(listener);
    if (latestRef.current) listener(latestRef.current);
    return () => {
      listenersRef.current.delete(listener);
    };
  }, []);
  return { arrived, closed, subscribe };
}

/** The transcript's frames that came while it was not listening (lib/held-transcript.ts), one hold per socket. */
function useHeldTranscriptFrames() {
  const [hold] = useState(() => new TranscriptFrameHold());
  return hold;
}

export function useRoomSocket(roomId: string, self: Identity, options: { basePath?: string } = {}) {
  const [status, setStatus] = useState<ConnectionStatus>("connecting");
  const [presence, setPresence] = useState<PresenceUser[]>([]);
  /** The last refusal the room sent us (rate limit, too large, …). */
  const [serverError, setServerError] = useState<string | null>(null);
  const sendRef = useRef<(data: string) => void>(() => {});
  const turn = useActiveTurn();
  const frames = useFrameListeners();
  const opened = useOpeningPages();
  const heldFrames = useHeldTranscriptFrames();

  const sub = useMemo(
    () => (options.basePath ? undefined : [{ agent: "ChatRoom", name: roomId }]),
    [roomId, options.basePath]
  );
  const query = useMemo(() => (options.basePath ? undefined : { page: String(PAGE_SIZE) }), [options.basePath]);
  const agent = useAgent<RoomState>({
    agent: "OverseerAgent",
    name: DEFAULT_WORKSPACE,
    sub,
    query,
    ...RECONNECT_OPTIONS,
    ...(options.basePath ? { basePath: options.basePath } : {}),
    onOpen: () => setStatus("open"),
    onClose: () => {
      openedPages.failed(roomId);
      opened.closed();
      heldFrames.closed();
      setStatus((s) => (s === "closed" ? s : "reconnecting"));
      setPresence([]);
      turn.reset();
    },
    onConnectionError: () => {
      openedPages.failed(roomId);
      setStatus("closed");
    },
    onMessage: (event: MessageEvent) => {
      if (typeof event.data !== "string") return;
      frames.deliver(event.data);
      heldFrames.arrived(event.data);
      const frame = readRoomFrame(event.data);
      if (frame?.kind === "opened") {
        openedPages.arrived(roomId, frame.page);
        opened.arrived(frame.page);
        setPresence(frame.presence);
      } else if (frame?.kind === "presence") setPresence(frame.users);
      else if (frame?.kind === "error") setServerError(frame.message);
      else if (frame) turn.onTurnFrame(frame);
    }
  });
  sendRef.current = (data) => agent.send(data);

  /**
   * Cancel the running turn even when another person started it: the chat
   * hook only cancels turns it sent or resumed, not ones it merely watches.
   */
  const { activeTurnRef } = turn;
  const cancelActiveTurn = useCallback(() => {
    const id = activeTurnRef.current;
    if (id) sendRef.current(JSON.stringify({ type: MessageType.CF_AGENT_CHAT_REQUEST_CANCEL, id }));
  }, [activeTurnRef]);

  useReconnectOnRename(agent, self.name);

  const statusRef = useRef(status);
  statusRef.current = status;
  const reconnectNow = useCallback(() => agent.reconnect(), [agent]);
  useEffect(() => reconnectOnReturn(() => statusRef.current !== "open", reconnectNow), [reconnectNow]);

  // Left: a later opening of the room waits for its own socket's page.
  useEffect(() => () => openedPages.forget(roomId), [roomId]);

  const sendFrame = useCallback((data: string) => sendRef.current(data), []);

  return {
    agent,
    status,
    onFrame: frames.subscribe,
    /** Every opening page from now on (and this connection's, if it came): what the socket missed while away. */
    onOpenedPage: opened.subscribe,
    /** For the transcript, while it listens: the frames that came for it while it did not (useHeldTranscriptFrames). */
    onHeldFrames: heldFrames.subscribe,
    sendFrame,
    presence,
    /** Our identity's id, as presence entries name it. */
    selfId: self.id,
    self,
    state: agent.state,
    connectionError: agent.connectionError,
    serverError,
    clearServerError: useCallback(() => setServerError(null), []),
    cancelActiveTurn,
    /** Try the connection again now, not at the next back-off step. */
    reconnectNow,
    /** A persona or panel turn runs in the room (anyone's). */
    liveTurnRunning: turn.liveTurnRunning,
    /** The room's newest page from the opening frame, for the first read of its history (once; null: read REST). */
    takeOpenedPage: useCallback(() => openedPages.take(roomId), [roomId])
  };
}

export type RoomSocket = ReturnType<typeof useRoomSocket>;
