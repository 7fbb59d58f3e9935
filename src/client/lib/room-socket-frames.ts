/**
 * What the room's socket tells the client beyond the chat protocol: the
 * room in one frame on connect, which turn is streaming (anyone's, persona
 * and panel turns included), who is here, and the room's refusals. Read from raw text frames, cheaply: a frame
 * that is neither a chat response nor one of ours is not parsed at all.
 */
import { MessageType } from "@cloudflare/ai-chat/types";
import { parseWireError } from "@/shared/errors";
import type { MessagePage, PresenceUser } from "@/shared/protocol";

export type RoomFrameEvent =
  /** A chat turn (the framework's response stream) is streaming. */
  | { kind: "chat-streaming"; id: string }
  /** A chat turn ended (done or failed). */
  | { kind: "chat-ended"; id: string }
  /** A persona or panel turn started or ended (`rooms_turn`). */
  | { kind: "turn"; requestId: string; running: boolean }
  | { kind: "presence"; users: PresenceUser[] }
  /** The room in one frame on connect, when the socket asked (`rooms_opened`; the state comes as the framework's too). */
  | { kind: "opened"; page: MessagePage; presence: PresenceUser[] }
  | { kind: "error"; message: string };

export function readRoomFrame(data: string): RoomFrameEvent | null {
  if (data.includes(`"${MessageType.CF_AGENT_USE_CHAT_RESPONSE}"`)) {
    try {
      const frame = JSON.parse(data) as { type?: string; id?: string; done?: boolean; error?: boolean };
      if (frame.type !== MessageType.CF_AGENT_USE_CHAT_RESPONSE || typeof frame.id !== "string") return null;
      return frame.done || frame.error
        ? { kind: "chat-ended", id: frame.id }
        : { kind: "chat-streaming", id: frame.id };
    } catch {
      return null; // Not JSON.
    }
  }
  if (!data.includes('"rooms_')) return null;
  try {
    const frame = JSON.parse(data) as {
      type?: string;
      users?: unknown;
      requestId?: unknown;
      running?: unknown;
      page?: { messages?: unknown };
      presence?: unknown;
    };
    if (frame.type === "rooms_turn" && typeof frame.requestId === "string") {
      return { kind: "turn", requestId: frame.requestId, running: frame.running === true };
    }
    if (frame.type === "rooms_presence" && Array.isArray(frame.users)) {
      return { kind: "presence", users: frame.users as PresenceUser[] };
    }
    if (frame.type === "rooms_opened" && Array.isArray(frame.page?.messages) && Array.isArray(frame.presence)) {
      return { kind: "opened", page: frame.page as MessagePage, presence: frame.presence as PresenceUser[] };
    }
    const error = parseWireError(frame);
    return error ? { kind: "error", message: error.message } : null;
  } catch {
    return null; // Not ours.
  }
}
