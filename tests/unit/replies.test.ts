/**
 * Replies, the pure rules: what a chat request asks to reply to, what a
 * reply keeps of its original (bounded, the server's own words), how the
 * quote survives persistence, edits and imports, and the one line the model
 * reads before a reply.
 */
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { guardChatRequest } from "@/server/domain/messages/chat-request-guard";
import { normalizeMessage } from "@/server/domain/messages/persisted-message";
import {
  quotePrefix,
  replyRefused,
  replyTargetOf,
  requestedReplyTo,
  withReplyQuotes
} from "@/server/domain/messages/reply-rules";
import { transcriptFor } from "@/server/domain/personas/persona-context";
import { remapIds } from "@/server/domain/transfer/imported-room";
import { outboxRequestFrame } from "@/shared/outbox";
import { REPLY_QUOTE_LENGTH, readReplyRef, replyRefOf } from "@/shared/replies";

const NOW = 1_700_000_000_000;
const ANN = { id: "u_ann", name: "Ann" };
const BOB = { id: "u_bob", name: "Bob" };
const QUOTE = { id: "m1", name: "Ann", text: "Shall we ship on Friday?" };

const request = (metadata: unknown, trigger = "submit-message") =>
  JSON.stringify({
    messages: [{ id: "m2", role: "user", parts: [{ type: "text", text: "Yes" }], metadata }],
    trigger
  });

describe("requestedReplyTo: what a socket send asks to reply to", () => {
  it("reads the id from the last message's metadata", () => {
    expect(requestedReplyTo(request({ replyTo: "m1" }))).toEqual({ kind: "reply", messageId: "m1" });
  });

  it("is none without one, without parsing a body that never mentions it", () => {
    expect(requestedReplyTo(request(undefined))).toEqual({ kind: "none" });
    expect(requestedReplyTo("{not json")).toEqual({ kind: "none" });
    expect(requestedReplyTo('{"replyTo": not json')).toEqual({ kind: "none" });
    expect(requestedReplyTo(undefined)).toEqual({ kind: "none" });
  });

  it("ignores a stored quote sent back, and anything on a regeneration", () => {
    expect(requestedReplyTo(request({ replyTo: QUOTE }))).toEqual({ kind: "none" });
    expect(requestedReplyTo(request({ replyTo: "m1" }, "regenerate-message"))).toEqual({ kind: "none" });
  });

  it("refuses an id that is not one", () => {
    for (const bad of ["", "x".repeat(129), 42, null, ["m1"]]) {
      expect(requestedReplyTo(request({ replyTo: bad })).kind, JSON.stringify(bad)).toBe("invalid");
    }
  });
});

describe("a browser's outbox send", () => {
  it("names the message it replies to by id only: the room writes its own quote", () => {
    const frame = JSON.parse(
      outboxRequestFrame("r1", { id: "client-0001", text: "Yes", createdAt: 1, replyTo: QUOTE })
    );
    const body = JSON.parse(frame.init.body);
    expect(body.messages[0].metadata).toEqual({ replyTo: "m1" });
    expect(requestedReplyTo(frame.init.body)).toEqual({ kind: "reply", messageId: "m1" });
    const plain = JSON.parse(outboxRequestFrame("r2", { id: "client-0002", text: "Hi", createdAt: 1 }));
    expect(JSON.parse(plain.init.body).messages[0]).not.toHaveProperty("metadata");
  });
});

describe("replyTargetOf: what a reply keeps of its original", () => {
  const user = (text: string, extra: Record<string, unknown> = {}) => ({
    id: "m1",
    role: "user",
    parts: [{ type: "text", text }],
    metadata: { author: ANN, createdAt: NOW },
    ...extra
  });

  it("is null when the room holds no such message", () => {
    expect(replyTargetOf(null)).toBeNull();
    expect(replyTargetOf(undefined)).toBeNull();
    expect(replyTargetOf({ id: "m1", role: "system", parts: [] }, NOW)).toBeNull();
  });

  it("quotes a person by name, collapsing whitespace", () => {
    expect(replyTargetOf(user("Shall we\n\n  ship on Friday?"), NOW)).toEqual(QUOTE);
  });

  it("quotes an answer as the room labels it: a persona or the assistant", () => {
    const answer = { id: "a1", role: "assistant", parts: [{ type: "text", text: "Friday works." }] };
    expect(replyTargetOf({ ...answer, metadata: { persona: { id: "p1", name: "Ada" } } }, NOW)).toEqual({
      id: "a1",
      name: "@Ada",
      text: "Friday works."
    });
    expect(replyTargetOf(answer, NOW)?.name).toBe("Assistant");
  });

  it("keeps at most the first 200 characters, marking the cut", () => {
    const quote = replyTargetOf(user("word ".repeat(100)), NOW);
    expect(quote?.text).toHaveLength(REPLY_QUOTE_LENGTH);
    expect(quote?.text.endsWith("…")).toBe(true);
  });

  it("names the files of a message that has no words", () => {
    const files = {
      id: "m1",
      role: "user",
      parts: [{ type: "file", url: "/api/rooms/r/files/f1", mediaType: "image/png", filename: "plan.png" }],
      metadata: { author: ANN }
    };
    expect(replyRefOf(files).text).toBe("plan.png");
  });

  it("reads back only a quote of its own shape", () => {
    expect(readReplyRef(QUOTE)).toEqual(QUOTE);
    expect(readReplyRef({ ...QUOTE, extra: "<script>" })).toEqual(QUOTE);
    expect(readReplyRef({ ...QUOTE, text: "x".repeat(5_000) })?.text).toHaveLength(REPLY_QUOTE_LENGTH);
    for (const bad of ["m1", null, { id: "", name: "Ann", text: "" }, { id: "m1", name: 3, text: "" }]) {
      expect(readReplyRef(bad)).toBeUndefined();
    }
  });

  it("is refused with the project's error model", () => {
    const refusal = replyRefused("nope");
    expect(refusal.status).toBe(400);
    expect(refusal.code).toBe("bad_request:reply_to");
  });
});

describe("the quote in stored messages", () => {
  const transcript: UIMessage[] = [
    { id: "m1", role: "user", parts: [{ type: "text", text: "Shall we ship on Friday?" }], metadata: { author: ANN } },
    { id: "a1", role: "assistant", parts: [{ type: "text", text: "Sure." }], metadata: { answers: "m1" } }
  ];
  const limits = { maxMessageLength: 100, maxMessages: 10 };
  const guard = (metadata: unknown, replyTo?: typeof QUOTE, id = "m2") =>
    guardChatRequest(request(metadata).replace('"m2"', `"${id}"`), transcript, { ...limits, replyTo }, BOB, NOW);
  const stored = (result: ReturnType<typeof guardChatRequest>) =>
    result.ok ? (JSON.parse(result.body).messages.at(-1) as UIMessage) : null;

  it("is the room's quote, never the client's", () => {
    expect(stored(guard({ replyTo: "m1" }, QUOTE))?.metadata).toEqual({ author: BOB, createdAt: NOW, replyTo: QUOTE });
    // A quote the client wrote itself is not kept.
    expect(stored(guard({ replyTo: { id: "a1", name: "Ann", text: "I never said this" } }))?.metadata).toEqual({
      author: BOB,
      createdAt: NOW
    });
  });

  it("stays on an edit of a reply", () => {
    const reply: UIMessage = {
      id: "m2",
      role: "user",
      parts: [{ type: "text", text: "Yes" }],
      metadata: { author: BOB, replyTo: QUOTE }
    };
    const result = guardChatRequest(
      request({ replyTo: QUOTE }),
      [...transcript, reply],
      limits,
      BOB,
      NOW,
      () => "m2v2"
    );
    expect(result.ok && result.branch?.message.metadata).toMatchObject({ replyTo: QUOTE, versionOf: "m2" });
  });

  it("survives persistence on a person's message, bounded, and only there", () => {
    const user = { id: "m2", role: "user", parts: [{ type: "text", text: "Yes" }], metadata: { replyTo: QUOTE } };
    expect(normalizeMessage(user, NOW)?.metadata).toMatchObject({ replyTo: QUOTE });
    const answer = { ...user, role: "assistant" };
    expect(normalizeMessage(answer, NOW)?.metadata).not.toHaveProperty("replyTo");
    const forged = { ...user, metadata: { replyTo: { id: "m1", name: "Ann", text: "y".repeat(10_000) } } };
    const kept = normalizeMessage(forged, NOW)?.metadata as { replyTo?: typeof QUOTE } | undefined;
    expect(kept?.replyTo?.text).toHaveLength(REPLY_QUOTE_LENGTH);
  });

  it("follows an import's new ids, and is dropped when its original is not in the file", () => {
    const [original, reply, orphan] = remapIds([
      { id: "m1", role: "user", parts: [{ type: "text", text: "Q" }], metadata: {} },
      { id: "m2", role: "user", parts: [{ type: "text", text: "A" }], metadata: { replyTo: QUOTE } },
      { id: "m3", role: "user", parts: [{ type: "text", text: "B" }], metadata: { replyTo: { ...QUOTE, id: "gone" } } }
    ] as never);
    expect(reply.metadata.replyTo).toEqual({ ...QUOTE, id: original.id });
    expect(orphan.metadata.replyTo).toBeUndefined();
  });
});

describe("what the model reads before a reply", () => {
  const messages: UIMessage[] = [
    { id: "m1", role: "user", parts: [{ type: "text", text: "Shall we ship on Friday?" }], metadata: { author: ANN } },
    {
      id: "m2",
      role: "user",
      parts: [{ type: "text", text: "Yes, after the review." }],
      metadata: { author: BOB, replyTo: QUOTE }
    }
  ];

  it("opens a reply with one line quoting its original; other messages are passed through as they are", () => {
    const seen = withReplyQuotes(messages);
    expect(seen[0]).toBe(messages[0]);
    expect(seen[1].parts).toEqual([
      { type: "text", text: '(in reply to Ann: "Shall we ship on Friday?")\n' },
      { type: "text", text: "Yes, after the review." }
    ]);
    expect(quotePrefix(QUOTE)).toBe('(in reply to Ann: "Shall we ship on Friday?")\n');
    // The stored message is not touched.
    expect(messages[1].parts).toHaveLength(1);
  });

  it("reaches a persona inside its speaker's line", () => {
    const [, reply] = transcriptFor("p1", withReplyQuotes(messages));
    expect(reply.parts).toEqual([
      {
        type: "text",
        text: '[from person "Bob"] (in reply to Ann: "Shall we ship on Friday?")\nYes, after the review.'
      }
    ]);
  });
});
