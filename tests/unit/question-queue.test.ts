import { describe, expect, it } from "vitest";
import { queuedQuestions, queueLine } from "@/client/lib/ai-queue";
import type { RoomMessage } from "@/client/lib/messages";
import { contextForTurn } from "@/server/domain/turns/turn-context";
import { isSettled, openQuestions } from "@/shared/question-queue";

const person = (name: string) => ({ id: `u-${name}`, name });
const ask = (id: string, name: string, metadata: Record<string, unknown> = {}): RoomMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `question ${id}` }],
  metadata: { author: person(name), ...metadata }
});
const answer = (id: string, answers: string, finished = true): RoomMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text: id }],
  metadata: { answers, ...(finished ? { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } } : {}) }
});
const ids = (messages: { id: string }[]) => messages.map((m) => m.id);

describe("openQuestions", () => {
  it("lists unanswered questions oldest first, leaving out answered, settled and withdrawn ones", () => {
    const messages = [
      ask("q1", "Ann"),
      answer("a1", "q1"),
      ask("q2", "Bob", { noReply: true }),
      ask("q3", "Cy", { withdrawn: true, noReply: true }),
      ask("q4", "Dee"),
      ask("q5", "Eve")
    ];
    expect(ids(openQuestions(messages))).toEqual(["q4", "q5"]);
    expect(isSettled(messages[3])).toBe(true);
    expect(isSettled(messages[4])).toBe(false);
  });
});

describe("queuedQuestions", () => {
  const self = "u-Bob";
  it("leaves out the question answered now: the one whose answer streams", () => {
    const messages = [ask("q1", "Ann"), ask("q2", "Bob"), ask("q3", "Cy"), answer("a1", "q1", false)];
    const queue = queuedQuestions(messages, true, self);
    expect(queue.map((q) => [q.id, q.name, q.mine])).toEqual([
      ["q2", "Bob", true],
      ["q3", "Cy", false]
    ]);
  });

  it("leaves out the oldest open question before its answer's first token", () => {
    expect(ids(queuedQuestions([ask("q1", "Ann"), ask("q2", "Bob")], true, self))).toEqual(["q2"]);
  });

  it("is empty while the room is idle", () => {
    expect(queuedQuestions([ask("q1", "Ann"), ask("q2", "Bob")], false, self)).toEqual([]);
  });
});

describe("queueLine", () => {
  const q = (name: string, mine = false) => ({ id: name, name, mine, preview: "" });
  it("names the next question, then the others, yours as yours", () => {
    expect(queueLine([])).toBe("");
    expect(queueLine([q("Bob")])).toBe("Next: Bob's question");
    expect(queueLine([q("Bob"), q("Cy")])).toBe("Next: Bob's question, then Cy's");
    expect(queueLine([q("Me", true), q("Cy"), q("Dee")])).toBe("Next: your question, then Cy's and Dee's");
    expect(queueLine([q("Bob"), q("Me", true), q("Dee"), q("Eve"), q("Fay")])).toBe(
      "Next: Bob's question, then yours, Dee's and 2 more"
    );
  });
});

describe("contextForTurn with a withdrawn question", () => {
  it("answers the next question and keeps the withdrawn one from the model", () => {
    const turn = contextForTurn([
      ask("q1", "Ann"),
      ask("q2", "Bob", { withdrawn: true, noReply: true }),
      ask("q3", "Cy"),
      answer("a1", "q1")
    ]);
    expect(turn.answering).toBe("q3");
    expect(turn.reanswering).toBe(false);
    expect(ids(turn.messages)).toEqual(["q1", "a1", "q3"]);
  });

  it("says when every question has an answer, so a turn queued for a withdrawn one can end", () => {
    const turn = contextForTurn([
      ask("q1", "Ann"),
      answer("a1", "q1"),
      ask("q2", "Bob", { withdrawn: true, noReply: true })
    ]);
    expect(turn.answering).toBe("q1");
    expect(turn.reanswering).toBe(true);
    expect(ids(turn.messages)).toEqual(["q1"]);
  });
});
