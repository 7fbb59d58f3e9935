/**
 * What a room's socket brought for the transcript while the transcript was
 * not listening, applied in order when it starts to (hooks/use-room-socket.ts
 * holds the frames, hooks/use-chat-room.ts applies them). The chat hook
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
 * Pure.
 */
import { reanchor } from "./history";
import type { RoomMessage } from "./messages";

export type HeldFrame = { kind: "window"; messages: RoomMessage[] } | { kind: "updated"; message: RoomMessage };

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
