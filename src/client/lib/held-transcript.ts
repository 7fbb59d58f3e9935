/**
 * What a room's socket brought for the transcript while the transcript was
 * not listening, applied in order when it starts to (TranscriptFrameHold
 * below holds the frames, one per socket in hooks/use-room-socket.ts;
 * hooks/use-chat-room.ts applies them). The chat hook
 * listens only once the room's first page has come (it suspends until
 * then), so without this a frame before that reached nobody.
 *
 * Each frame is applied as the framework applies it, so the result is what
 * the transcript would hold had it been listening: a transcript frame
 * (`cf_agent_chat_messages`) replaces the newest part of the list from its
 * first message on (re-anchored as lib/history.ts does: a send's frame
 * carries the new message alone, a persist's the room's whole window, an
 * edit's or a regeneration's a new version that takes its original's
 * place), and an update (`cf_agent_message_updated`) replaces its message.
 * No React; unit-tested (tests/unit/held-transcript.test.ts).
 */
import { MessageType } from "@cloudflare/ai-chat/types";
import type { ChatMessage } from "@/shared/protocol";
import { reanchor } from "./history";
import { fromChatMessage, type RoomMessage } from "./messages";

export type HeldFrame = { kind: "window"; messages: RoomMessage[] } | { kind: "updated"; message: RoomMessage };

const TRANSCRIPT_FRAME_TYPES: readonly string[] = [
  MessageType.CF_AGENT_CHAT_MESSAGES,
  MessageType.CF_AGENT_MESSAGE_UPDATED
];

/**
 * A frame that changes the transcript (`cf_agent_chat_messages`: a window
 * of the newest messages; `cf_agent_message_updated`: one message), or
 * null. For TranscriptFrameHold; a frame of any other type is not parsed.
 */
export function readTranscriptFrame(data: string): HeldFrame | null {
  if (!TRANSCRIPT_FRAME_TYPES.some((type) => data.includes(`"${type}"`))) return null;
  try {
    const frame = JSON.parse(data) as { type?: string; messages?: unknown; message?: unknown };
    if (frame.type === MessageType.CF_AGENT_CHAT_MESSAGES && Array.isArray(frame.messages)) {
      return { kind: "window", messages: (frame.messages as ChatMessage[]).map(fromChatMessage) };
    }
    if (frame.type === MessageType.CF_AGENT_MESSAGE_UPDATED && frame.message && typeof frame.message === "object") {
      return { kind: "updated", message: fromChatMessage(frame.message as ChatMessage) };
    }
    return null;
  } catch {
    return null; // Not JSON.
  }
}

/** The transcript `list` with the held frames applied, oldest first. */
export function applyHeldFrames(list: readonly RoomMessage[], frames: readonly HeldFrame[]): RoomMessage[] {
  let held = [...list];
  for (const frame of frames) {
    if (frame.kind === "updated") {
      const at = held.findIndex((m) => m.id === frame.message.id);
      if (at >= 0) held = [...held.slice(0, at), frame.message, ...held.slice(at + 1)];
      continue;
    }
    // An empty window says nothing about what we hold (a clear has its own frame).
    if (frame.messages.length === 0) continue;
    const anchored = reanchor({ live: held, older: [], reachedStart: false }, frame.messages);
    held = [...anchored.older, ...anchored.live];
  }
  return held;
}

/** What a transcript takes when it starts to listen. */
export interface HeldFrames {
  frames: HeldFrame[];
  /** Some of the oldest were dropped (more came than are kept): read the newest page again, which is current for what it covers. */
  overflowed: boolean;
}

/**
 * A socket's hold of the transcript's frames while no transcript listens
 * (the socket hands it every frame; only transcript frames, and only while
 * nobody listens, are parsed). At most `max` are kept: past that the oldest
 * go and the transcript is told, so it reads the room's newest page again,
 * current for what it covers. (Only more than a page of messages written
 * before the first page came could then leave a gap in front of it.)
 */
export class TranscriptFrameHold {
  #held: HeldFrames = { frames: [], overflowed: false };
  #listeners = 0;

  constructor(private readonly max = 200) {}

  arrived(data: string) {
    if (this.#listeners > 0) return;
    const frame = readTranscriptFrame(data);
    if (!frame) return;
    this.#held.frames.push(frame);
    if (this.#held.frames.length > this.max) {
      this.#held.frames.shift();
      this.#held.overflowed = true;
    }
  }

  /** The socket closed: its reconnect's opening page brings the room. */
  closed() {
    this.#held = { frames: [], overflowed: false };
  }

  /** The transcript listens from now on: it takes what was held since it last did, if anything. */
  subscribe = (take: (held: HeldFrames) => void): (() => void) => {
    this.#listeners++;
    const held = this.#held;
    this.#held = { frames: [], overflowed: false };
    if (held.frames.length > 0) take(held);
    return () => {
      this.#listeners--;
    };
  };
}
