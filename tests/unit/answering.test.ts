import { describe, expect, it } from "vitest";
import { answeringQuestionOf } from "@/client/lib/answering";
import type { RoomMessage } from "@/client/lib/messages";

const q = (id: string, author: string): RoomMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: id }],
  metadata: { author: { id: author, name: author } }
});
const a = (id: string, extra: Record<string, unknown> = {}): RoomMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text: "…" }],
  metadata: extra
});
const done = { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } };

describe("answeringQuestionOf", () => {
  it("is mine while my question waits for its answer, and while its answer streams", () => {
    expect(answeringQuestionOf([q("q1", "ann")], "ann")).toBe(true);
    expect(answeringQuestionOf([q("q1", "ann"), a("a1")], "ann")).toBe(true);
    expect(answeringQuestionOf([q("q1", "ann"), a("a1")], "ben")).toBe(false);
  });

  it("follows the answer, not the last message, when someone asked meanwhile", () => {
    const room = [q("q1", "ann"), a("a1"), q("q2", "ben")];
    expect(answeringQuestionOf(room, "ann")).toBe(true);
    expect(answeringQuestionOf(room, "ben")).toBe(false);
  });

  it("takes the question the answer names, and ignores finished answers", () => {
    expect(answeringQuestionOf([q("q1", "ann"), q("q2", "ben"), a("a1", { answers: "q1" })], "ann")).toBe(true);
    expect(answeringQuestionOf([q("q1", "ann"), a("a1", done)], "ann")).toBe(false);
  });
});
