import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import {
  composeOfflineReply,
  createOfflineModel,
  OFFLINE_MODEL_ID,
  type OfflineRoomFacts,
  offlineDelegation,
  offlineReaction
} from "../../src/server/model/offline-model";

const facts: OfflineRoomFacts = {
  roomName: "Design Review",
  messageCount: 42,
  systemPrompt: "You are a terse assistant for the design team."
};

const QUESTION = "What did we decide about the new onboarding flow last week?";

async function collectTextDeltas(stream: AsyncIterable<string>, onDelta?: (n: number) => void) {
  const deltas: string[] = [];
  for await (const delta of stream) {
    deltas.push(delta);
    onDelta?.(deltas.length);
  }
  return deltas;
}

function userPrompt(text: string): LanguageModelV4Prompt {
  return [{ role: "user", content: [{ type: "text", text }] }];
}

async function readAll<T>(stream: ReadableStream<T>) {
  const parts: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

describe("offline model: streaming through streamText", () => {
  it("streams exactly the composed reply for the last user message", async () => {
    const result = streamText({
      model: createOfflineModel(facts, { chunkDelayMs: 0 }),
      instructions: facts.systemPrompt!,
      messages: [
        { role: "user", content: "an earlier question" },
        { role: "assistant", content: "an earlier answer" },
        { role: "user", content: QUESTION }
      ]
    });
    const deltas = await collectTextDeltas(result.textStream);
    expect(deltas.join("")).toBe(composeOfflineReply(QUESTION, facts));
  });

  it("arrives in many word-sized deltas rather than one blob", async () => {
    const result = streamText({ model: createOfflineModel(facts, { chunkDelayMs: 0 }), prompt: QUESTION });
    const deltas = await collectTextDeltas(result.textStream);
    expect(deltas.length).toBeGreaterThan(5);
    for (const delta of deltas) expect(delta.trim().split(/\s+/).length).toBeLessThanOrEqual(1);
  });

  it("reports usage: input estimated from the prompt, output = number of deltas", async () => {
    const result = streamText({ model: createOfflineModel(facts, { chunkDelayMs: 0 }), prompt: QUESTION });
    const deltas = await collectTextDeltas(result.textStream);
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(deltas.length);
    expect(usage.inputTokens).toBe(Math.ceil(QUESTION.length / 4));
    expect(usage.totalTokens).toBe(deltas.length + Math.ceil(QUESTION.length / 4));
    expect(await result.finishReason).toBe("stop");
  });

  it("identifies itself as the offline model in the response metadata", async () => {
    const result = streamText({ model: createOfflineModel(facts, { chunkDelayMs: 0 }), prompt: QUESTION });
    await result.consumeStream();
    expect((await result.response).modelId).toBe(OFFLINE_MODEL_ID);
    expect(await result.providerMetadata).toEqual({ "rooms-offline": { offline: true } });
  });

  it("stops promptly when the caller aborts mid-stream", async () => {
    const full = composeOfflineReply(QUESTION, facts).match(/\S+\s*|\s+/g)!.length;
    const controller = new AbortController();
    const result = streamText({
      model: createOfflineModel(facts, { chunkDelayMs: 5 }),
      prompt: QUESTION,
      abortSignal: controller.signal
    });
    const deltas: string[] = [];
    try {
      for await (const delta of result.textStream) {
        deltas.push(delta);
        if (deltas.length === 1) controller.abort();
      }
    } catch {
      // streamText may surface the abort as an error; either way it must stop.
    }
    expect(full).toBeGreaterThan(20);
    expect(deltas.length).toBeLessThanOrEqual(3);
  });
});

describe("offline model: the LanguageModelV4 contract", () => {
  it("emits stream-start, text-start, deltas, text-end and a V4 finish part in order", async () => {
    const model = createOfflineModel(facts, { chunkDelayMs: 0 });
    expect(model.specificationVersion).toBe("v4");
    expect(model.provider).toBe("rooms-offline");
    expect(model.modelId).toBe("offline");
    const { stream } = await model.doStream({ prompt: userPrompt(QUESTION) });
    const parts = await readAll(stream);
    const types = parts.map((p) => p.type).filter((t) => t !== "text-delta" && t !== "response-metadata");
    expect(types).toEqual(["stream-start", "text-start", "text-end", "finish"]);
    const finish = parts.at(-1) as Extract<LanguageModelV4StreamPart, { type: "finish" }>;
    const deltaCount = parts.filter((p) => p.type === "text-delta").length;
    expect(finish.finishReason).toEqual({ unified: "stop", raw: "stop" });
    expect(finish.usage.outputTokens.total).toBe(deltaCount);
    expect(finish.usage.inputTokens.total).toBe(Math.ceil(QUESTION.length / 4));
  });

  it("errors the raw stream with an AbortError and emits nothing more once aborted", async () => {
    const controller = new AbortController();
    const model = createOfflineModel(facts, { chunkDelayMs: 5 });
    const { stream } = await model.doStream({ prompt: userPrompt(QUESTION), abortSignal: controller.signal });
    const reader = stream.getReader();
    let deltas = 0;
    let error: unknown;
    const started = Date.now();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.type === "text-delta" && ++deltas === 1) controller.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(deltas).toBe(1);
    expect((error as Error).name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("refuses to start when the signal is already aborted", async () => {
    const model = createOfflineModel(facts, { chunkDelayMs: 0 });
    await expect(
      model.doStream({ prompt: userPrompt(QUESTION), abortSignal: AbortSignal.abort() })
    ).rejects.toMatchObject({ name: "AbortError" });
  });

  it("answers an empty prompt without crashing", async () => {
    const model = createOfflineModel(facts, { chunkDelayMs: 0 });
    const { stream } = await model.doStream({ prompt: [] });
    const text = (await readAll(stream)).flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("");
    expect(text).toBe(composeOfflineReply("", facts));
    expect(text).toContain("Offline model");
    expect(text).not.toContain("You asked:");
  });
});

describe("offline model: generateText", () => {
  it("returns the whole reply in one go", async () => {
    const result = await generateText({
      model: createOfflineModel(facts, { chunkDelayMs: 0 }),
      prompt: QUESTION
    });
    expect(result.text).toBe(composeOfflineReply(QUESTION, facts));
    expect(result.response.modelId).toBe(OFFLINE_MODEL_ID);
    expect(result.usage.outputTokens).toBeGreaterThan(5);
  });
});

describe("composeOfflineReply", () => {
  it("says plainly it is offline and not AI, and how to configure a real model", () => {
    const reply = composeOfflineReply(QUESTION, facts);
    expect(reply.startsWith("**Offline model**")).toBe(true);
    expect(reply).toContain("not AI");
    expect(reply).toContain("`OPENAI_API_KEY`");
    expect(reply).toContain("`OPENAI_BASE_URL`");
    expect(reply).toContain("`OPENAI_MODEL`");
    expect(reply).toContain("`.dev.vars`");
  });

  it("includes the room name, message count and system prompt", () => {
    const reply = composeOfflineReply(QUESTION, facts);
    expect(reply).toContain("**Design Review**");
    expect(reply).toContain("42 messages so far");
    expect(reply).toContain("You are a terse assistant for the design team.");
  });

  it("says 'none' when there is no system prompt and uses the singular for one message", () => {
    const reply = composeOfflineReply(QUESTION, { roomName: "x", messageCount: 1, systemPrompt: null });
    expect(reply).toContain("system prompt: none.");
    expect(reply).toContain("1 message so far");
  });

  it("quotes the question as a blockquote, truncated to 500 characters", () => {
    const long = "a".repeat(600);
    const reply = composeOfflineReply(long, facts);
    expect(reply).toContain(`> ${"a".repeat(500)}…`);
    expect(reply).not.toContain("a".repeat(501));
    expect(composeOfflineReply("hi", facts)).toContain("> hi");
  });

  it("truncates the system prompt to 200 characters", () => {
    const reply = composeOfflineReply("q", { ...facts, systemPrompt: "p".repeat(300) });
    expect(reply).toContain(`${"p".repeat(200)}…`);
    expect(reply).not.toContain("p".repeat(201));
  });

  it("keeps a question containing ``` fences inside the blockquote", () => {
    const question = "look:\n```js\nconsole.log(1)\n```\n\n# Heading\n   ~~~\nend";
    const reply = composeOfflineReply(question, facts);
    const quoted = reply.split("\n\n").find((block) => block.startsWith("> look:"))!;
    expect(quoted).toBeDefined();
    const lines = quoted.split("\n");
    expect(lines).toHaveLength(8);
    for (const line of lines) {
      expect(line.startsWith(">")).toBe(true);
      expect(line.replace(/^>\s?/, "").trimStart().startsWith("```")).toBe(false);
      expect(line.replace(/^>\s?/, "").trimStart().startsWith("~~~")).toBe(false);
    }
    // No line anywhere in the reply opens a code fence.
    for (const line of reply.split("\n")) expect(/^\s*(```|~~~)/.test(line)).toBe(false);
    expect(quoted).toContain("\\`\\`\\`js");
  });

  it("is deterministic", () => {
    expect(composeOfflineReply(QUESTION, facts)).toBe(composeOfflineReply(QUESTION, facts));
  });
});

describe("offline model: delegation", () => {
  it("reads 'delegate: …' as a task to wait for and 'delegate later: …' as one in the background", () => {
    expect(offlineDelegation("delegate: Summarise the plan")).toEqual({
      task: "Summarise the plan",
      background: false
    });
    expect(offlineDelegation("  /Delegate later:  Count\nthe chairs ")).toEqual({
      task: "Count\nthe chairs",
      background: true
    });
    expect(offlineDelegation("please delegate: this")).toBeNull();
    expect(offlineDelegation("delegate:   ")).toBeNull();
    expect(offlineDelegation("What is delegation?")).toBeNull();
  });
});

describe("offline model: reactions", () => {
  it("reacts to a message that only thanks or agrees, past its sender's header and mentions", () => {
    expect(offlineReaction('[from person "Ann"] @Ada thanks!')).toBe("🙏");
    expect(offlineReaction("@Ada, @Bob: Thank you so much.")).toBe("🙏");
    expect(offlineReaction("Sounds good")).toBe("👍");
    expect(offlineReaction('[from person "Bob"] LGTM')).toBe("👍");
  });

  it("answers anything with more to it", () => {
    expect(offlineReaction("@Ada thanks, and what should we ship first?")).toBeNull();
    expect(offlineReaction("ok so what now?")).toBeNull();
    expect(offlineReaction("")).toBeNull();
  });

  it("calls `react` only when the tool is offered", async () => {
    const prompt: LanguageModelV4Prompt = [{ role: "user", content: [{ type: "text", text: "thanks!" }] }];
    const model = createOfflineModel(facts, { chunkDelayMs: 0 });
    const offered = await model.doGenerate({
      prompt,
      tools: [{ type: "function", name: "react", inputSchema: { type: "object" } }]
    });
    expect(offered.content).toEqual([
      expect.objectContaining({ type: "tool-call", toolName: "react", input: JSON.stringify({ emoji: "🙏" }) })
    ]);
    const plain = await model.doGenerate({ prompt });
    expect(plain.content).toEqual([expect.objectContaining({ type: "text" })]);
  });
});
