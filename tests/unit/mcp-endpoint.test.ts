/**
 * The pure parts of Rooms' MCP endpoint: what its tools answer, how a
 * failure reads as a tool error, the tools' input limits, and the reader
 * of a streamed send's events that post_message waits on.
 */
import { describe, expect, it } from "vitest";
import { AppError } from "@/server/app-error";
import { messageEntry, postReply, roomPageReply, toolError } from "@/server/domain/mcp-endpoint/endpoint-replies";
import { takeSendEvents } from "@/server/domain/mcp-endpoint/send-events";
import { MCP_MAX_PAGE, MCP_MAX_WAIT_SECONDS, PostMessageInput, ReadRoomInput } from "@/shared/mcp-endpoint";
import type { ChatMessage } from "@/shared/protocol";

const question: ChatMessage = {
  id: "m1",
  role: "user",
  parts: [
    { type: "text", text: "What is " },
    { type: "text", text: "the plan?" },
    { type: "file", mediaType: "text/plain", filename: "plan.txt", url: "/api/rooms/r/files/f_0123456789abcdef" }
  ],
  metadata: { author: { id: "token:t1", name: "Claude Code" }, createdAt: Date.UTC(2026, 0, 2, 3, 4, 5) }
};
const answer: ChatMessage = {
  id: "m2",
  role: "assistant",
  parts: [{ type: "text", text: "To ship." }],
  metadata: { persona: { id: "p1", name: "Critic" }, createdAt: Date.UTC(2026, 0, 2, 3, 4, 6), answers: "m1" }
};

describe("the MCP endpoint's answers", () => {
  it("gives each message its writer, time, whole text and files", () => {
    expect(messageEntry(question)).toEqual({
      id: "m1",
      role: "user",
      author: { id: "token:t1", name: "Claude Code" },
      createdAt: "2026-01-02T03:04:05.000Z",
      text: "What is the plan?",
      files: ["plan.txt"]
    });
    expect(messageEntry(answer).author).toEqual({ id: "persona:p1", name: "Critic" });
    const legacy = { ...question, metadata: { author: "Old name" } } as unknown as ChatMessage;
    expect(messageEntry(legacy).author).toEqual({ id: null, name: "Old name" });
  });

  it("says how to read on, and when the first message is reached", () => {
    const more = JSON.parse(roomPageReply("r", { messages: [answer], nextCursor: "m1" }).content[0].text);
    expect(more).toMatchObject({ room: "r", nextCursor: "m1", more: expect.stringContaining("cursor") });
    const last = JSON.parse(roomPageReply("r", { messages: [question], nextCursor: null }).content[0].text);
    expect(last.more).toBe("This page reaches the room's first message.");
  });

  it("tells a post that was not waited for from one whose answer came late", () => {
    const posted = JSON.parse(postReply("r", { kind: "posted", message: question }).content[0].text);
    expect(posted).toMatchObject({ status: "posted", answer: null, posted: { id: "m1" } });
    const late = JSON.parse(
      postReply("r", { kind: "still_answering", message: question, waitedSeconds: 5 }).content[0].text
    );
    expect(late).toMatchObject({ status: "still_answering", note: expect.stringContaining("within 5 s") });
  });

  it("makes a refusal a tool error with its sentence and code, and hides anything else", () => {
    const refused = toolError(new AppError("rate_limited:requests", 429, "Too many sends; try again in 3 s.", 3));
    expect(refused).toEqual({
      isError: true,
      content: [{ type: "text", text: "Too many sends; try again in 3 s. (rate_limited:requests, retry after 3 s)" }]
    });
    const hidden = toolError(new Error("SQLITE_CORRUPT at /var/secret"));
    expect(hidden.content[0].text).toBe("Something went wrong on the server (internal:unexpected).");
  });
});

describe("the MCP tools' inputs", () => {
  it("page a room, never more than a page", () => {
    expect(ReadRoomInput.parse({ room: "r" })).toEqual({ room: "r", limit: 20 });
    expect(ReadRoomInput.safeParse({ room: "r", limit: MCP_MAX_PAGE + 1 }).success).toBe(false);
    expect(ReadRoomInput.safeParse({ room: "r", extra: 1 }).success).toBe(false);
  });

  it("bound how long a post waits", () => {
    expect(PostMessageInput.parse({ room: "r", text: "hi" })).toMatchObject({ wait: true, timeoutSeconds: 60 });
    expect(
      PostMessageInput.safeParse({ room: "r", text: "hi", timeoutSeconds: MCP_MAX_WAIT_SECONDS + 1 }).success
    ).toBe(false);
    expect(PostMessageInput.safeParse({ room: "r", text: "  " }).success).toBe(false);
  });
});

describe("a streamed send's events", () => {
  it("are taken whole as they arrive, whatever the chunking", () => {
    const wire =
      'event: user-message\ndata: {"id":"m1"}\n\nevent: chunk\ndata: {"type":"text-delta"}\n\nevent: done\ndata: {"status":"completed"}\n\n';
    for (const size of [1, 7, 40, wire.length]) {
      const seen: string[] = [];
      let rest = "";
      for (let at = 0; at < wire.length; at += size) {
        const taken = takeSendEvents(rest + wire.slice(at, at + size));
        rest = taken.rest;
        seen.push(...taken.events.map((e) => `${e.event}:${JSON.stringify(e.data)}`));
      }
      expect(seen).toEqual(['user-message:{"id":"m1"}', 'chunk:{"type":"text-delta"}', 'done:{"status":"completed"}']);
      expect(rest).toBe("");
    }
  });
});
