import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeModelError } from "@/server/domain/turns/model-errors";
import { createStreamGuardFetch } from "@/server/model/stream-guard-fetch";
import { type FakeOpenAI, startFakeOpenAI } from "../support/fake-openai";

// The guard runs against a real HTTP server speaking the provider's format.
let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});

// Generous by default: only the tests about the idle timeout make it short.
async function run(
  prompt: string,
  idleTimeoutMs = 10_000,
  abortSignal?: AbortSignal,
  onPart: (type: string) => void = () => {}
) {
  const openai = createOpenAI({ baseURL: fake.url, apiKey: "k", fetch: createStreamGuardFetch({ idleTimeoutMs }) });
  const errors: unknown[] = [];
  const result = streamText({
    model: openai.chat("fake-model"),
    prompt,
    maxRetries: 0,
    abortSignal,
    onError: ({ error }) => {
      errors.push(error);
    }
  });
  let text = "";
  const parts: string[] = [];
  try {
    for await (const part of result.fullStream) {
      parts.push(part.type);
      onPart(part.type);
      if (part.type === "text-delta") text += part.text;
    }
  } catch (error) {
    errors.push(error);
  }
  return { text, errors, parts };
}

describe("createStreamGuardFetch", () => {
  it("passes a healthy stream through unchanged", async () => {
    const { text, errors } = await run("hello there");
    expect(errors).toEqual([]);
    expect(text).toBe("Echo: hello there");
  });

  it("turns a stream cut mid-answer into a 'connection lost' provider error, keeping the text so far", async () => {
    const { text, errors } = await run("cut me [[fake:cut=3]]");
    expect(text.length).toBeGreaterThan(0);
    expect(errors).toHaveLength(1);
    expect(describeModelError(errors[0])).toMatch(/lost mid-answer/);
  });

  it("ends a stream that goes silent after the idle timeout and closes the upstream request", async () => {
    const started = Date.now();
    const { errors } = await run("silence [[fake:hang]]", 300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(describeModelError(errors[0])).toMatch(/stopped responding/);
    const request = fake.requests.find((r) => r.lastUserText?.includes("silence"))!;
    await fake.waitForClientClose(request.id, 2_000);
  });

  it("answers 504 when no headers arrive in time", async () => {
    const { errors } = await run("no headers [[fake:hang=noheaders]]", 300);
    expect(describeModelError(errors[0])).toMatch(/stopped responding \(HTTP 504\)/);
  });

  it("still lets a user's stop abort the stream as an abort, not an error", async () => {
    const controller = new AbortController();
    // Stopped as soon as the answer has begun, mid-stream.
    const { text, parts, errors } = await run(
      "slowly [[fake:slow=50]] with a long answer to interrupt",
      5_000,
      controller.signal,
      (type) => {
        if (type === "text-delta") controller.abort();
      }
    );
    expect(parts).toContain("text-delta");
    expect(parts).toContain("abort");
    expect(text.length).toBeLessThan("Echo: slowly with a long answer to interrupt".length);
    expect(errors.map((e) => describeModelError(e))).not.toContainEqual(expect.stringMatching(/lost mid-answer/));
  });
});
