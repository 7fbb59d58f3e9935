import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { assembleContext, type ContextSection } from "@/server/domain/memory/context-assembly";
import { estimateMessageTokens, MESSAGE_OVERHEAD_TOKENS } from "@/server/domain/turns/context-budget";

let seq = 0;
function msg(role: UIMessage["role"], tokens: number, id = `m${seq++}`): UIMessage {
  return { id, role, parts: [{ type: "text", text: "x".repeat((tokens - MESSAGE_OVERHEAD_TOKENS) * 4) }] };
}

function conversation(pairs: number, tokens: number): UIMessage[] {
  const out: UIMessage[] = [];
  for (let i = 0; i < pairs; i++) out.push(msg("user", tokens, `u${i}`), msg("assistant", tokens, `a${i}`));
  return out;
}

const pins = (texts: string[], budget = 1_000): ContextSection => ({
  kind: "pins",
  heading: "Pinned",
  budget,
  items: texts.map((text, i) => ({ ref: { id: `p${i}` }, text }))
});

const summaries = (texts: string[], budget = 1_000): ContextSection => ({
  kind: "summaries",
  heading: "Summary",
  budget,
  items: texts.map((text, i) => ({
    ref: { id: `s${i}`, fromMessageId: `f${i}`, toMessageId: `t${i}`, messageCount: 10, level: 0 },
    text
  }))
});

describe("assembleContext", () => {
  it("puts the system prompt, then pins, then summaries in the system message, in that order", () => {
    const out = assembleContext({
      budget: 10_000,
      systemPrompt: "Be brief.",
      sections: [pins(["We chose Postgres", "Ship date is 12 March"]), summaries(["Earlier they argued."])],
      history: conversation(2, 20)
    });
    const prompt = out.system.indexOf("Be brief.");
    const pin = out.system.indexOf("- We chose Postgres");
    const summary = out.system.indexOf("Earlier they argued.");
    expect(prompt).toBe(0);
    expect(pin).toBeGreaterThan(prompt);
    expect(summary).toBeGreaterThan(pin);
    expect(out.record.pins.map((p) => p.id)).toEqual(["p0", "p1"]);
    expect(out.record.summaries).toEqual([
      expect.objectContaining({ id: "s0", fromMessageId: "f0", toMessageId: "t0", messageCount: 10 })
    ]);
    expect(out.record.pins.every((p) => p.tokens > 0)).toBe(true);
  });

  it("gives the window what the sections and tools leave, and records it by reference", () => {
    const history = conversation(10, 100); // 20 messages of 100 tokens
    const bare = assembleContext({ budget: 1_000, systemPrompt: "", sections: [], history });
    expect(bare.messages).toHaveLength(10);
    const withMemory = assembleContext({
      budget: 1_000,
      systemPrompt: "",
      sections: [pins(["x".repeat(4 * 150)])],
      tools: [{ name: "get_current_time", tokens: 60 }],
      history
    });
    // 1,000 - ~155 (pin + heading) - 60 (tool) leaves room for 7 messages, and the window starts with a user message.
    expect(withMemory.messages.length).toBeLessThan(10);
    expect(withMemory.messages[0].role).toBe("user");
    expect(withMemory.record.window).toEqual({
      fromMessageId: withMemory.messages[0].id,
      toMessageId: history.at(-1)!.id,
      messageCount: withMemory.messages.length,
      tokens: withMemory.messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0)
    });
    expect(withMemory.dropped).toEqual(history.slice(0, history.length - withMemory.messages.length));
    expect(withMemory.record.leftOut.messages).toBe(withMemory.dropped.length);
    expect(withMemory.record.tools).toEqual([{ name: "get_current_time", tokens: 60 }]);
    expect(withMemory.record.totalTokens).toBeLessThanOrEqual(1_000);
    expect(withMemory.record.totalTokens).toBe(
      withMemory.record.systemPrompt.tokens +
        withMemory.record.pins.reduce((s, p) => s + p.tokens, 0) +
        estimateHeading("Pinned") +
        60 +
        withMemory.record.window.tokens
    );
  });

  it("never leaves an item out silently: what does not fit its budget is named in leftOut", () => {
    const long = "y".repeat(4 * 80);
    const out = assembleContext({
      budget: 10_000,
      systemPrompt: "",
      sections: [pins([long, long, "short one"], 100), summaries([long, long, long], 170)],
      history: conversation(1, 10)
    });
    // Pins are kept first-come: the first long one and the short one fit, the second long one does not.
    expect(out.record.pins.map((p) => p.id)).toEqual(["p0", "p2"]);
    expect(out.record.leftOut.pins).toEqual(["p1"]);
    // Summaries keep the newest (they lead into the window); older ones are named.
    expect(out.record.summaries.map((s) => s.id)).toEqual(["s1", "s2"]);
    expect(out.record.leftOut.summaries).toEqual(["s0"]);
    expect(out.system).toContain("short one");
  });

  it("omits an empty section's heading and the system message is empty without any part", () => {
    const out = assembleContext({ budget: 100, systemPrompt: "  ", sections: [pins([])], history: [] });
    expect(out.system).toBe("");
    expect(out.messages).toEqual([]);
    expect(out.record.window).toEqual({ fromMessageId: null, toMessageId: null, messageCount: 0, tokens: 0 });
  });

  it("keeps the last message even when memory takes the whole budget", () => {
    const history = conversation(3, 50);
    const out = assembleContext({
      budget: 100,
      systemPrompt: "",
      sections: [pins(["z".repeat(4 * 95)], 100)],
      history
    });
    expect(out.messages.map((m) => m.id)).toEqual([history.at(-1)!.id]);
  });
});

function estimateHeading(heading: string): number {
  return Math.ceil(`## ${heading}\n`.length / 4);
}
