import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { contextForTurn } from "@/server/domain/turns/turn-context";

const user = (id: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text: id }] });
const answer = (id: string, answers?: string): UIMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text: id }],
  ...(answers ? { metadata: { answers } } : {})
});
const ids = (messages: UIMessage[]) => messages.map((m) => m.id);

describe("contextForTurn", () => {
  it("answers the last question of an ordinary conversation", () => {
    const turn = contextForTurn([user("u1"), answer("a1"), user("u2")]);
    expect(turn.answering).toBe("u2");
    expect(ids(turn.messages)).toEqual(["u1", "a1", "u2"]);
  });

  it("answers the oldest of two questions sent at once, without showing the newer one", () => {
    const turn = contextForTurn([user("u1"), user("u2")]);
    expect(turn.answering).toBe("u1");
    expect(ids(turn.messages)).toEqual(["u1"]);
  });

  it("answers the second question next, with the first exchange threaded before it", () => {
    const turn = contextForTurn([user("u1"), user("u2"), answer("a1", "u1")]);
    expect(turn.answering).toBe("u2");
    expect(ids(turn.messages)).toEqual(["u1", "a1", "u2"]);
  });

  it("keeps several answers to one question together (tool steps, regenerations)", () => {
    const turn = contextForTurn([user("u1"), answer("a1"), answer("a1b"), user("u2")]);
    expect(ids(turn.messages)).toEqual(["u1", "a1", "a1b", "u2"]);
  });

  it("re-answers the last question when every question has an answer (regenerate)", () => {
    const turn = contextForTurn([user("u1"), answer("a1")]);
    expect(turn.answering).toBe("u1");
    expect(ids(turn.messages)).toEqual(["u1"]);
  });

  it("passes a conversation without questions through unchanged", () => {
    const turn = contextForTurn([answer("a0")]);
    expect(turn.answering).toBeNull();
    expect(ids(turn.messages)).toEqual(["a0"]);
  });
});
