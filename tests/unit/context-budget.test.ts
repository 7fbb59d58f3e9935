import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import {
  estimateMessageTokens,
  estimateTokens,
  MESSAGE_OVERHEAD_TOKENS,
  selectContextWindow
} from "@/server/domain/turns/context-budget";

let seq = 0;
function text(role: UIMessage["role"], body: string, id = `m${seq++}`): UIMessage {
  return { id, role, parts: [{ type: "text", text: body }] };
}

/** A message whose estimate is exactly `tokens` (text of (tokens - overhead) * 4 chars). */
function sized(role: UIMessage["role"], tokens: number, id?: string): UIMessage {
  return text(role, "x".repeat((tokens - MESSAGE_OVERHEAD_TOKENS) * 4), id);
}

function toolMessage(id: string, output: unknown): UIMessage {
  return {
    id,
    role: "assistant",
    parts: [
      { type: "step-start" },
      {
        type: "tool-search_room_history",
        toolCallId: `call-${id}`,
        state: "output-available",
        input: { query: "budget", limit: 5 },
        output
      },
      { type: "text", text: "Here is what I found." }
    ]
  } as UIMessage;
}

/** Wraps an array in a Proxy that records which indices are read. */
function tracked<T>(items: T[]) {
  const reads = new Set<number>();
  const proxy = new Proxy(items, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && /^\d+$/.test(prop)) reads.add(Number(prop));
      return Reflect.get(target, prop, receiver);
    }
  });
  return { proxy, reads };
}

describe("estimateTokens", () => {
  it("is ceil(chars / 4)", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abc")).toBe(1);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("x".repeat(400))).toBe(100);
  });
});

describe("estimateMessageTokens", () => {
  it("counts text plus a per-message overhead", () => {
    expect(estimateMessageTokens(text("user", "x".repeat(40)))).toBe(10 + MESSAGE_OVERHEAD_TOKENS);
  });

  it("counts reasoning text and tool input and output JSON", () => {
    const small = toolMessage("a", { hits: [] });
    const big = toolMessage("b", { hits: [{ messageId: "m", role: "user", snippet: "y".repeat(4000) }] });
    expect(estimateMessageTokens(big) - estimateMessageTokens(small)).toBeGreaterThanOrEqual(1000);
    const withReasoning: UIMessage = {
      id: "r",
      role: "assistant",
      parts: [
        { type: "reasoning", text: "z".repeat(400) },
        { type: "text", text: "ok" }
      ]
    };
    expect(estimateMessageTokens(withReasoning)).toBe(MESSAGE_OVERHEAD_TOKENS + 100 + 1);
  });
});

describe("selectContextWindow", () => {
  it("keeps a small history whole", () => {
    const messages = [text("user", "hi"), text("assistant", "hello"), text("user", "how are you?")];
    const result = selectContextWindow(messages, { maxTokens: 1000 });
    expect(result.messages).toEqual(messages);
    expect(result.droppedCount).toBe(0);
    expect(result.usedTokens).toBe(messages.reduce((n, m) => n + estimateMessageTokens(m), 0));
  });

  it("returns an empty window for an empty history", () => {
    expect(selectContextWindow([], { maxTokens: 100 })).toEqual({ messages: [], droppedCount: 0, usedTokens: 0 });
  });

  it("keeps only the recent tail of a 10,000-message history and reads only that tail", () => {
    const all: UIMessage[] = [];
    for (let i = 0; i < 10_000; i++) all.push(sized(i % 2 === 0 ? "user" : "assistant", 10, `h${i}`));
    const { proxy, reads } = tracked(all);

    const result = selectContextWindow(proxy, { maxTokens: 100 });

    expect(result.messages.map((m) => m.id)).toEqual(all.slice(-10).map((m) => m.id));
    expect(result.usedTokens).toBe(100);
    expect(result.usedTokens).toBeLessThanOrEqual(100);
    expect(result.droppedCount).toBe(9_990);
    // Ten kept plus the one that did not fit; never the other 9,989.
    expect(reads.size).toBeLessThanOrEqual(11);
    expect(Math.min(...reads)).toBeGreaterThanOrEqual(10_000 - 11);
  });

  it("never starts the window with an assistant message when a user message is in it", () => {
    // Budget fits the last three: [assistant a1, user u2, assistant a2] -> a1 must go.
    const messages = [
      sized("user", 10, "u1"),
      sized("assistant", 10, "a1"),
      sized("user", 10, "u2"),
      sized("assistant", 10, "a2")
    ];
    const result = selectContextWindow(messages, { maxTokens: 35 });
    expect(result.messages.map((m) => m.id)).toEqual(["u2", "a2"]);
    expect(result.messages[0]!.role).toBe("user");
    expect(result.droppedCount).toBe(2);
    expect(result.usedTokens).toBe(20);
  });

  it("drops a run of leading assistant messages, not just one", () => {
    const messages = [
      sized("user", 10, "u1"),
      sized("assistant", 10, "a1"),
      sized("assistant", 10, "a2"),
      sized("user", 10, "u2"),
      sized("assistant", 10, "a3")
    ];
    const result = selectContextWindow(messages, { maxTokens: 40 });
    expect(result.messages.map((m) => m.id)).toEqual(["u2", "a3"]);
  });

  it("keeps a lone assistant message when no user message fits", () => {
    const messages = [sized("user", 50, "u1"), sized("assistant", 10, "a1")];
    const result = selectContextWindow(messages, { maxTokens: 20 });
    expect(result.messages.map((m) => m.id)).toEqual(["a1"]);
  });

  it("keeps tool parts with their message: a message is wholly in or wholly out", () => {
    const tool = toolMessage("t1", { hits: [{ messageId: "m", role: "user", snippet: "y".repeat(400) }] });
    const toolCost = estimateMessageTokens(tool);
    const messages = [sized("user", 10, "u1"), tool, sized("user", 10, "u2")];

    const fits = selectContextWindow(messages, { maxTokens: 10 + toolCost + 10 });
    expect(fits.messages.map((m) => m.id)).toEqual(["u1", "t1", "u2"]);
    expect(fits.messages[1]).toBe(tool);
    expect(fits.messages[1]!.parts).toHaveLength(3);

    // One token short for the tool message: it is dropped whole, never partially.
    const tight = selectContextWindow(messages, { maxTokens: 10 + toolCost - 1 });
    expect(tight.messages.map((m) => m.id)).toEqual(["u2"]);
    expect(tight.droppedCount).toBe(2);
  });

  it("counts the system prompt against the budget", () => {
    const messages = [
      sized("user", 10, "u1"),
      sized("assistant", 10, "a1"),
      sized("user", 10, "u2"),
      sized("assistant", 10, "a2")
    ];
    expect(selectContextWindow(messages, { maxTokens: 40 }).messages).toHaveLength(4);
    const withPrompt = selectContextWindow(messages, { maxTokens: 40, systemPrompt: "s".repeat(80) }); // 20 tokens
    expect(withPrompt.messages.map((m) => m.id)).toEqual(["u2", "a2"]);
    expect(withPrompt.usedTokens).toBe(20);
    expect(selectContextWindow(messages, { maxTokens: 40, systemPrompt: null }).messages).toHaveLength(4);
  });

  it("keeps the last message even if it alone is over budget, untruncated", () => {
    const huge = text("user", "q".repeat(10_000), "big");
    const result = selectContextWindow([text("user", "old"), huge], {
      maxTokens: 10,
      systemPrompt: "also long ".repeat(10)
    });
    expect(result.messages).toEqual([huge]);
    expect((result.messages[0]!.parts[0] as { text: string }).text).toHaveLength(10_000);
    expect(result.droppedCount).toBe(1);
    expect(result.usedTokens).toBe(estimateMessageTokens(huge));
  });

  it("does not mutate its input", () => {
    const messages = [sized("assistant", 10, "a0"), sized("user", 10, "u1"), sized("assistant", 10, "a1")];
    const copy = structuredClone(messages);
    selectContextWindow(messages, { maxTokens: 25 });
    expect(messages).toEqual(copy);
  });
});
