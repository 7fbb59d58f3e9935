/**
 * Reading the room socket's raw frames on the client: which turn streams,
 * the room's opening frame, and the transcript's frames the socket holds
 * while the transcript is not yet listening (hooks/use-room-socket.ts).
 */
import { MessageType } from "@cloudflare/ai-chat/types";
import { describe, expect, it } from "vitest";
import { readTranscriptFrame } from "@/client/lib/held-transcript";
import { readRoomFrame } from "@/client/lib/room-socket-frames";

const message = { id: "m1", role: "user", parts: [{ type: "text", text: "hello" }], metadata: { createdAt: 1 } };

describe("readTranscriptFrame", () => {
  it("reads the framework's window of messages and its one-message update", () => {
    const window = JSON.stringify({ type: MessageType.CF_AGENT_CHAT_MESSAGES, messages: [message] });
    expect(readTranscriptFrame(window)).toEqual({ kind: "window", messages: [message] });
    const updated = JSON.stringify({ type: MessageType.CF_AGENT_MESSAGE_UPDATED, message });
    expect(readTranscriptFrame(updated)).toEqual({ kind: "updated", message });
  });

  it("refuses anything else: another frame type, no list, not JSON", () => {
    expect(
      readTranscriptFrame(JSON.stringify({ type: MessageType.CF_AGENT_USE_CHAT_RESPONSE, messages: [] }))
    ).toBeNull();
    expect(readTranscriptFrame(JSON.stringify({ type: MessageType.CF_AGENT_CHAT_MESSAGES, messages: "x" }))).toBeNull();
    expect(readTranscriptFrame(`{"type":"${MessageType.CF_AGENT_CHAT_MESSAGES}",`)).toBeNull();
  });
});

describe("readRoomFrame", () => {
  it("tells a streaming chat turn from one that ended", () => {
    const frame = (extra: object) =>
      JSON.stringify({ type: MessageType.CF_AGENT_USE_CHAT_RESPONSE, id: "r1", ...extra });
    expect(readRoomFrame(frame({ body: "{}" }))).toEqual({ kind: "chat-streaming", id: "r1" });
    expect(readRoomFrame(frame({ done: true }))).toEqual({ kind: "chat-ended", id: "r1" });
  });

  it("reads the opening frame, and leaves the transcript's frames to the chat hook", () => {
    const page = { messages: [message], nextCursor: null };
    expect(readRoomFrame(JSON.stringify({ type: "rooms_opened", page, presence: [] }))).toEqual({
      kind: "opened",
      page,
      presence: []
    });
    expect(readRoomFrame(JSON.stringify({ type: MessageType.CF_AGENT_CHAT_MESSAGES, messages: [message] }))).toBeNull();
  });
});
