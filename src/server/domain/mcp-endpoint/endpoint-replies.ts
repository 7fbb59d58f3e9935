/**
 * What the tools of Rooms' MCP server (routes/mcp-endpoint-routes.ts) answer: the
 * REST answers, trimmed to what an outside agent needs to read a room
 * (who said what, when), as one JSON text block each; and the one way a
 * failure becomes a tool error. Pure, so the shapes are unit-tested.
 *
 * JSON in a text block, not `structuredContent`: every MCP client shows
 * text to its model, and not every one forwards structured content.
 */
import { AppError } from "@/server/app-error";
import type { ChatMessage, MessagePage, RoomDetail, RoomSummary, SendMessageResult } from "@/shared/protocol";
import type { SearchResponse } from "@/shared/search";

/** A tool's answer, as the MCP SDK takes it from a tool callback. */
export interface ToolReply {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  isError?: boolean;
}

const reply = (value: unknown): ToolReply => ({ content: [{ type: "text", text: JSON.stringify(value, null, 1) }] });

const iso = (ms: number | null | undefined) => (typeof ms === "number" ? new Date(ms).toISOString() : null);

/** A failure as a tool error: an AppError's own sentence and code; anything else says nothing of our insides. */
export function toolError(error: unknown): ToolReply {
  const text =
    error instanceof AppError
      ? `${error.message} (${error.code}${error.retryAfterSeconds ? `, retry after ${error.retryAfterSeconds} s` : ""})`
      : "Something went wrong on the server (internal:unexpected).";
  return { isError: true, content: [{ type: "text", text }] };
}

function roomEntry(room: RoomSummary) {
  return {
    id: room.id,
    name: room.name,
    visibility: room.visibility,
    messageCount: room.messageCount,
    lastActiveAt: iso(room.lastActiveAt),
    lastMessagePreview: room.lastMessagePreview
  };
}

export function roomListReply(rooms: readonly RoomSummary[]): ToolReply {
  return reply({ rooms: rooms.map(roomEntry) });
}

export function createdRoomReply(room: RoomDetail): ToolReply {
  return reply({ room: { ...roomEntry(room), yourRole: room.access?.role ?? null } });
}

/** Who wrote a message: its author, the persona that answered, or the room's assistant. */
function writer(message: ChatMessage): { id: string | null; name: string } {
  const meta = message.metadata;
  if (message.role === "user") {
    const author = meta?.author as unknown;
    if (author && typeof author === "object" && "name" in author) {
      const { id, name } = author as { id?: unknown; name?: unknown };
      return { id: typeof id === "string" ? id : null, name: String(name) };
    }
    return { id: null, name: typeof author === "string" ? author : "someone" };
  }
  if (meta?.persona) return { id: `persona:${meta.persona.id}`, name: meta.persona.name };
  return { id: null, name: message.role === "assistant" ? "Assistant" : message.role };
}

/** One message as an outside reader needs it: its text in full, and the names of the files it carries. */
export function messageEntry(message: ChatMessage) {
  const text = message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("");
  const files = message.parts
    .filter((part): part is { type: "file"; filename?: string; mediaType: string; url: string } => part.type === "file")
    .map((part) => part.filename ?? part.mediaType);
  const meta = message.metadata;
  return {
    id: message.id,
    role: message.role,
    author: writer(message),
    createdAt: iso(meta?.createdAt),
    text,
    ...(files.length > 0 ? { files } : {}),
    ...(meta?.error ? { error: meta.error } : {}),
    ...(meta?.stopped ? { stopped: true } : {})
  };
}

/** A page, oldest first as REST pages are, with how to read on. */
export function roomPageReply(roomId: string, page: MessagePage): ToolReply {
  return reply({
    room: roomId,
    messages: page.messages.map(messageEntry),
    nextCursor: page.nextCursor,
    ...(page.nextCursor
      ? { more: "Older messages: call read_room again with this nextCursor as cursor." }
      : { more: "This page reaches the room's first message." })
  });
}

export function searchReply(found: SearchResponse): ToolReply {
  return reply({
    results: found.results.map((hit) => ({
      room: hit.roomId,
      roomName: hit.roomName,
      messageId: hit.messageId,
      role: hit.role,
      author: hit.author,
      createdAt: iso(hit.createdAt),
      snippet: hit.snippet
    })),
    roomsSearched: found.roomsSearched,
    ...(found.partial
      ? { partial: `${found.missingCount} room(s) did not answer in time; their matches are missing.` }
      : {})
  });
}

/** What `post_message` learned: the posted message, and the answer when it came in time. */
export type PostOutcome =
  | { kind: "posted"; message: ChatMessage }
  | { kind: "answered"; result: SendMessageResult }
  | { kind: "still_answering"; message: ChatMessage; waitedSeconds: number };

export function postReply(roomId: string, outcome: PostOutcome): ToolReply {
  if (outcome.kind === "answered") {
    const { result } = outcome;
    return reply({
      room: roomId,
      posted: messageEntry(result.userMessage),
      status: result.status,
      answer: result.assistantMessage ? messageEntry(result.assistantMessage) : null,
      ...(result.error ? { error: result.error } : {})
    });
  }
  return reply({
    room: roomId,
    posted: messageEntry(outcome.message),
    status: outcome.kind === "posted" ? "posted" : "still_answering",
    answer: null,
    note:
      outcome.kind === "posted"
        ? "Posted without waiting; read the answer later with read_room."
        : `No answer within ${outcome.waitedSeconds} s; the room is still answering. Read it later with read_room.`
  });
}
