/**
 * Which frames a room socket accepts. An allow-list, not a deny-list: the
 * framework's protocol grows (tool results, approvals, whole-transcript
 * `cf_agent_chat_messages`, client state, RPC…) and every one of those would
 * otherwise reach code that persists or acts on what a client sends. Built
 * from the library's own constants, so a frame type added upstream is
 * refused until someone decides it is safe here.
 */
import { MessageType as ChatFrameType } from "@cloudflare/ai-chat/types";
import { MessageType as AgentFrameType } from "agents/types";
import { RoomClientFrame } from "@/shared/protocol";

/** Framework frames a room client may send, and what each is for. */
const FRAMEWORK_FRAMES_ALLOWED: ReadonlySet<string> = new Set([
  // A new message, an edit or a regeneration; rebuilt by chat-request-guard.
  ChatFrameType.CF_AGENT_USE_CHAT_REQUEST,
  // Stop an answer (anyone in the room may).
  ChatFrameType.CF_AGENT_CHAT_REQUEST_CANCEL,
  // Rejoining a running answer after a reconnect.
  ChatFrameType.CF_AGENT_STREAM_RESUME_REQUEST,
  ChatFrameType.CF_AGENT_STREAM_RESUME_ACK
]);

/** Our own client frames (presence, typing), from the shared schema. */
const ROOM_FRAMES: ReadonlySet<string> = new Set(RoomClientFrame.options.map((option) => option.shape.type.value));

/** Every frame type the framework defines, both directions (tests iterate it). */
export const FRAMEWORK_FRAME_TYPES: readonly string[] = [
  ...new Set([...Object.values(ChatFrameType), ...Object.values(AgentFrameType)])
];

export type FrameDecision =
  | { kind: "chat-request" }
  /** Forward this rebuilt frame (only the fields the framework reads). */
  | { kind: "framework"; frame: string }
  | { kind: "room" }
  | { kind: "refused"; message: string };

const MAX_FRAME_ID_LENGTH = 128;
const boundedId = (value: unknown) =>
  typeof value === "string" && value.length > 0 && value.length <= MAX_FRAME_ID_LENGTH ? value : undefined;

export function decideRoomFrame(frame: unknown): FrameDecision {
  const fields =
    typeof frame === "object" && frame !== null && !Array.isArray(frame) ? (frame as Record<string, unknown>) : {};
  const type = fields.type;
  if (typeof type !== "string") return { kind: "refused", message: "A frame needs a string type." };
  if (type === ChatFrameType.CF_AGENT_USE_CHAT_REQUEST) return { kind: "chat-request" };
  if (FRAMEWORK_FRAMES_ALLOWED.has(type)) {
    // Cancel and resume-ack name a request; a resume request may carry a probe id.
    const id = boundedId(fields.id);
    const probeId = boundedId(fields.probeId);
    if (type === ChatFrameType.CF_AGENT_STREAM_RESUME_REQUEST) {
      return { kind: "framework", frame: JSON.stringify({ type, ...(probeId ? { probeId } : {}) }) };
    }
    if (!id)
      return { kind: "refused", message: `A ${type} frame needs an id of 1 to ${MAX_FRAME_ID_LENGTH} characters.` };
    return { kind: "framework", frame: JSON.stringify({ type, id }) };
  }
  if (ROOM_FRAMES.has(type)) return { kind: "room" };
  if (type === ChatFrameType.CF_AGENT_CHAT_CLEAR) {
    return { kind: "refused", message: "Clearing a room's history is not allowed; delete the room instead." };
  }
  return { kind: "refused", message: `Frames of type "${type.slice(0, 64)}" are not accepted by a room.` };
}
