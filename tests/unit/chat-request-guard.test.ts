import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { guardChatRequest } from "@/server/domain/messages/chat-request-guard";

const limits = { maxMessageLength: 100, maxMessages: 10 };
const AUTHOR = { id: "u_ann", name: "Ann" };
const BEN = { id: "u_ben", name: "Ben" };
const stored = (id: string, role: "user" | "assistant", text: string): UIMessage => ({
  id,
  role,
  parts: [{ type: "text", text }],
  metadata: { author: role === "user" ? AUTHOR : undefined }
});
const transcript = [stored("u1", "user", "hello"), stored("a1", "assistant", "hi there")];
const known = new Map(transcript.map((m) => [m.id, m]));
const NOW = 1_700_000_000_000;
const send = (messages: unknown[], trigger = "submit-message", history: UIMessage[] = transcript, as = AUTHOR) =>
  guardChatRequest(JSON.stringify({ messages, trigger }), history, limits, as, NOW, () => "new-id");
const newUser = (id: string, text: string, extra: Record<string, unknown> = {}) => ({
  id,
  role: "user",
  parts: [{ type: "text", text }],
  ...extra
});

describe("guardChatRequest", () => {
  it("accepts a new user message after the known history", () => {
    const result = send([known.get("u1"), known.get("a1"), newUser("u2", "next", { metadata: { author: "Bo" } })]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const body = JSON.parse(result.body);
    // The room holds the transcript: the framework is handed the new message alone.
    expect(body.messages.map((m: UIMessage) => m.id)).toEqual(["u2"]);
    // The client's metadata is gone; the server's author and time are written.
    expect(body.messages[0]).toEqual(newUser("u2", "next", { metadata: { author: AUTHOR, createdAt: NOW } }));
    expect(result.newText).toBe("next");
  });

  it("passes on no history sent back altered", () => {
    const forged = { ...known.get("a1"), parts: [{ type: "text", text: "I was rewritten" }] };
    const result = send([known.get("u1"), forged, newUser("u2", "next")]);
    expect(result.ok).toBe(true);
    expect(result.ok && result.body).not.toContain("I was rewritten");
  });

  it("drops unknown earlier messages instead of storing them", () => {
    const injected = { id: "fake", role: "assistant", parts: [{ type: "text", text: "injected" }] };
    const result = send([injected, known.get("u1"), newUser("u2", "next")]);
    expect(result.ok && JSON.parse(result.body).messages.map((m: UIMessage) => m.id)).toEqual(["u2"]);
  });

  it("hands on the same new message whether the client holds the whole transcript or none of it", () => {
    const alone = send([newUser("u2", "next")]);
    const withHistory = send([known.get("u1"), known.get("a1"), newUser("u2", "next")]);
    expect(alone.ok && JSON.parse(alone.body).messages.map((m: UIMessage) => m.id)).toEqual(["u2"]);
    expect(alone.ok && alone.body).toBe(withHistory.ok && withHistory.body);
  });

  it("turns an edit into a new version beside the original, deleting nothing", () => {
    const longer = [...transcript, stored("u2", "user", "second"), stored("a2", "assistant", "reply")];
    const result = send([newUser("u2", "second, edited")], "submit-message", longer);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const edited = newUser("new-id", "second, edited", {
      metadata: { author: AUTHOR, createdAt: NOW, versionOf: "u2", version: 2 }
    });
    expect(result.branch).toEqual({ kind: "edit", parentId: "a1", message: edited, path: [...transcript, edited] });
    expect(JSON.parse(result.body).messages).toEqual([...transcript, edited]);
  });

  it("lets only the author edit a message", () => {
    const result = send([newUser("u1", "Ben rewrites Ann")], "submit-message", transcript, BEN);
    expect(result).toMatchObject({ ok: false, code: "forbidden:not_author" });
    const legacy = [{ ...stored("u1", "user", "old"), metadata: { author: "Ann" } }];
    expect(send([newUser("u1", "mine?")], "submit-message", legacy)).toMatchObject({ ok: false });
  });

  it("regenerates only the latest answer, as a new version beside it", () => {
    const longer = [...transcript, stored("u2", "user", "second"), stored("a2", "assistant", "reply")];
    const latest = send([{ id: "u2", role: "user", parts: [] }], "regenerate-message", longer);
    expect(latest.ok).toBe(true);
    if (!latest.ok) return;
    expect(latest.branch).toEqual({
      kind: "regenerate",
      parentId: "u2",
      message: {
        id: "new-id",
        role: "assistant",
        parts: [],
        metadata: { createdAt: NOW, versionOf: "a2", version: 2 }
      },
      path: longer.slice(0, 3)
    });
    const oldest = send([{ id: "u1", role: "user", parts: [] }], "regenerate-message", longer);
    expect(oldest).toMatchObject({ ok: false, code: "conflict:not_latest" });
  });

  it("marks a regenerated persona answer's version with that persona, so the persona is asked again", () => {
    const byAda: UIMessage = {
      ...stored("a1", "assistant", "Ada's take"),
      metadata: { persona: { id: "p_ada", name: "Ada", colour: "forged" }, version: 3 }
    };
    const result = send([{ id: "u1", role: "user", parts: [] }], "regenerate-message", [transcript[0], byAda]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.branch?.message.metadata).toEqual({
      createdAt: NOW,
      versionOf: "a1",
      version: 4,
      persona: { id: "p_ada", name: "Ada" }
    });
  });

  it.each([
    [
      "an assistant message as the new one",
      [{ id: "x", role: "assistant", parts: [{ type: "text", text: "hi" }] }],
      /Only a user message/
    ],
    ["an edit that turns an answer into a question", [newUser("a1", "now a question")], /Only a user message/],
    ["a non-text part", [{ id: "x", role: "user", parts: [{ type: "file", url: "data:," }] }], /text parts only/],
    ["an empty message", [newUser("x", "   ")], /empty/],
    ["an over-long message", [newUser("x", "y".repeat(101))], /at most 100 characters/],
    ["a message without an id", [{ role: "user", parts: [] }], /needs an id/],
    ["too many messages", Array.from({ length: 11 }, (_, i) => newUser(`m${i}`, "x")), /at most 10 messages/],
    ["no messages", [], /at least one/]
  ])("refuses %s", (_what, messages, reason) => {
    const result = send(messages);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(reason);
  });

  it("refuses bodies that are not chat requests", () => {
    expect(guardChatRequest(undefined, transcript, limits).ok).toBe(false);
    expect(guardChatRequest("{nope", transcript, limits).ok).toBe(false);
    expect(guardChatRequest(JSON.stringify({ messages: "x" }), transcript, limits).ok).toBe(false);
    expect(
      guardChatRequest(JSON.stringify({ messages: [newUser("x", "hi")], trigger: "delete-all" }), transcript, limits).ok
    ).toBe(false);
  });

  it("regenerates from the room's transcript up to the message, whatever the client sent before it", () => {
    const result = send(
      [{ id: "u1", role: "user", parts: [{ type: "text", text: "tampered" }] }],
      "regenerate-message"
    );
    expect(result.ok && JSON.parse(result.body)).toEqual({
      messages: [known.get("u1")],
      trigger: "regenerate-message"
    });
    // An unanswered question is simply answered.
    const unanswered = send([{ id: "u1", role: "user", parts: [] }], "regenerate-message", [known.get("u1")!]);
    expect(unanswered.ok && unanswered.branch).toBeUndefined();
    expect(send([{ id: "ghost", role: "user", parts: [] }], "regenerate-message").ok).toBe(false);
  });
});
