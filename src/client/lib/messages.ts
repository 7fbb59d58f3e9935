import { getToolName, isToolUIPart, type UIMessage } from "ai";
import type { ChatMessage, MessageMetadata } from "@/shared/protocol";
import { type PartApproval, partApproval } from "./mcp-view";

/** The AI SDK message shape with our server's metadata. */
export type RoomMessage = UIMessage<MessageMetadata>;
export type RoomMessagePart = RoomMessage["parts"][number];

const UNREADABLE_MESSAGE = "This message cannot be shown.";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The client's edge: whatever a response holds, what reaches the chat hook
 * and the renderer has a role, a list of typed parts and record metadata.
 * A message without that shape stays in place as a notice.
 */
export function fromChatMessage(message: ChatMessage): RoomMessage {
  const raw = message as unknown as Record<string, unknown>;
  const metadata = isRecord(raw.metadata) ? (raw.metadata as MessageMetadata) : undefined;
  const wellFormed =
    isRecord(raw) &&
    typeof raw.id === "string" &&
    (raw.role === "user" || raw.role === "assistant") &&
    Array.isArray(raw.parts);
  if (wellFormed) {
    const parts = (raw.parts as unknown[]).filter((p) => isRecord(p) && typeof p.type === "string");
    if (parts.length === (raw.parts as unknown[]).length && metadata === raw.metadata)
      return message as unknown as RoomMessage;
    return { ...(message as unknown as RoomMessage), parts: parts as RoomMessagePart[], metadata };
  }
  return {
    id: typeof raw?.id === "string" ? raw.id : crypto.randomUUID(),
    role: "assistant",
    parts: [],
    metadata: {
      createdAt: typeof metadata?.createdAt === "number" ? metadata.createdAt : undefined,
      error: UNREADABLE_MESSAGE
    }
  };
}

export function messageText(message: Pick<RoomMessage, "parts">): string {
  let text = "";
  if (!Array.isArray(message.parts)) return text;
  for (const part of message.parts) {
    if (part.type === "text") text += (text ? "\n\n" : "") + part.text;
  }
  return text;
}

export interface ToolPartView {
  name: string;
  state: string;
  input: unknown;
  output: unknown;
  errorText: string | undefined;
  toolCallId: string;
  /** An "ask first" call's approval: asked, and once decided who decided (lib/mcp-view.ts). */
  approval: PartApproval | undefined;
}

/** `tool-<name>` and `dynamic-tool` parts, normalised for display. */
export function asToolPart(part: RoomMessagePart): ToolPartView | null {
  if (!isToolUIPart(part)) return null;
  // Stored parts passed the server's checks, but old rooms may lack fields.
  return {
    name: getToolName(part) ?? "tool",
    state: String(part.state ?? ""),
    input: part.input,
    output: "output" in part ? part.output : undefined,
    errorText: "errorText" in part && typeof part.errorText === "string" ? part.errorText : undefined,
    toolCallId: String(part.toolCallId ?? ""),
    approval: "approval" in part ? partApproval(part.approval) : undefined
  };
}

/**
 * Keeps message objects whose content did not change referentially equal
 * across server snapshots, so memoised rows skip re-rendering. Cheap when
 * nothing changed (reference check), one stringify per changed message.
 */
export class MessageIdentityCache {
  #entries = new Map<string, { source: RoomMessage; json: string; stable: RoomMessage }>();

  stabilize(list: readonly RoomMessage[]): RoomMessage[] {
    const seen = new Set<string>();
    const out = list.map((message) => {
      seen.add(message.id);
      const entry = this.#entries.get(message.id);
      if (entry && entry.source === message) return entry.stable;
      let json: string;
      try {
        json = JSON.stringify(message);
      } catch {
        // Unserializable (e.g. nested past the stack): its row's error boundary shows a notice.
        json = `unserializable:${message.id}:${Math.random()}`;
      }
      if (entry && entry.json === json) {
        entry.source = message;
        return entry.stable;
      }
      this.#entries.set(message.id, { source: message, json, stable: message });
      return message;
    });
    // Bound the cache to what is on screen (plus older pages kept elsewhere).
    if (this.#entries.size > seen.size * 2 + 200) {
      for (const id of this.#entries.keys()) if (!seen.has(id)) this.#entries.delete(id);
    }
    return out;
  }
}

/**
 * Stable, pleasant colour per person (for avatars), from their identity's id
 * (their name when there is none): dark enough for white
 * initials at WCAG AA. Raw palette classes on purpose: twelve categorical
 * hues that tell people apart, the same on both themes, not UI roles.
 */
const AVATAR_COLORS = [
  "bg-rose-700",
  "bg-orange-700",
  "bg-amber-700",
  "bg-lime-700",
  "bg-emerald-700",
  "bg-teal-700",
  "bg-cyan-700",
  "bg-sky-700",
  "bg-blue-600",
  "bg-violet-600",
  "bg-fuchsia-700",
  "bg-pink-700"
];

export function avatarColor(seed: string): string {
  // FNV-1a: ids that differ in one character still land far apart.
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193);
  return AVATAR_COLORS[(hash >>> 0) % AVATAR_COLORS.length];
}

export function initials(name: string): string {
  const words = name
    .trim()
    .split(/[\s_-]+/)
    .filter(Boolean);
  if (words.length === 0) return "?";
  const first = Array.from(words[0])[0] ?? "";
  const second = words.length > 1 ? (Array.from(words[1])[0] ?? "") : (Array.from(words[0])[1] ?? "");
  return (first + second).toUpperCase();
}

/** A room-list preview without the Markdown punctuation. */
export function plainPreview(text: string): string {
  return text
    .replace(/```[\w-]*/g, " ")
    .replace(/`+/g, "")
    .replace(/(^|\s)#{1,6}\s+/g, "$1")
    .replace(/(^|\s)>\s+/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,!?:;]|$)/g, "$1$2")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}
