import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateText, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { fakeClient } from "../support/fake-client.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../support/fake-openai.ts";

let fake: FakeOpenAI;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  openai = createOpenAI({ baseURL: fake.url, apiKey: "test" });
});

beforeEach(() => {
  fake.reset();
});

afterAll(async () => {
  await fake?.close();
});

/** streamText logs stream errors to the console by default; the tests inspect them instead */
const quiet = { onError: () => {} };

function model() {
  return openai.chat("fake-model");
}

/** Drain a streamText fullStream, returning text deltas and error parts. */
async function drain(result: { fullStream: AsyncIterable<{ type: string }> }) {
  const deltas: string[] = [];
  const errors: unknown[] = [];
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") deltas.push((part as unknown as { text: string }).text);
      if (part.type === "error") errors.push((part as unknown as { error: unknown }).error);
    }
  } catch (err) {
    errors.push(err);
  }
  return { deltas, errors, text: deltas.join("") };
}

async function expectStatusError(promise: Promise<unknown>, status: number) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e
  );
  expect(err, `expected an error with status ${status}`).toBeDefined();
  const apiError = APICallError.isInstance(err)
    ? err
    : APICallError.isInstance((err as any)?.lastError)
      ? (err as any).lastError
      : undefined;
  expect(apiError, `expected an APICallError, got ${String(err)}`).toBeDefined();
  expect(apiError.statusCode).toBe(status);
  return apiError as APICallError;
}

describe("fake OpenAI server driven by the real AI SDK client", () => {
  it("streams the echo of the last user message in several deltas", async () => {
    const result = streamText({ ...quiet, model: model(), prompt: "hello fake world" });
    const { deltas, errors, text } = await drain(result);
    expect(errors).toEqual([]);
    expect(deltas.length).toBeGreaterThan(1);
    expect(text).toBe("Echo: hello fake world");
    expect(await result.finishReason).toBe("stop");

    const req = fake.requests.at(-1)!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.body.stream).toBe(true);
    expect(req.body.model).toBe("fake-model");
    expect(req.closedByClient).toBe(false);
  });

  it("echoes a user message whose content is an array of text parts", async () => {
    const result = await generateText({
      model: model(),
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "part one, " },
            { type: "text", text: "part two" }
          ]
        }
      ]
    });
    expect(result.text).toBe("Echo: part one, part two");
  });

  it("reports token usage for streamed and non-streamed completions", async () => {
    const streamed = streamText({ ...quiet, model: model(), prompt: "count my tokens please" });
    await drain(streamed);
    const usage = await streamed.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    const total = await streamed.totalUsage;
    expect(total.totalTokens).toBe((total.inputTokens ?? 0) + (total.outputTokens ?? 0));
    expect(fake.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });

    const generated = await generateText({ model: model(), prompt: "count my tokens please" });
    expect(generated.text).toBe("Echo: count my tokens please");
    expect(generated.usage.inputTokens).toBe(usage.inputTokens);
    expect(generated.usage.outputTokens).toBeGreaterThan(0);
  });

  it("answers with a tool call that the SDK executes, then with text built from the tool result", async () => {
    fake.setScenario({ kind: "tool-call", toolName: "get_current_time", args: { timezone: "UTC" } });
    const calls: unknown[] = [];
    const result = streamText({
      ...quiet,
      model: model(),
      prompt: "what time is it?",
      tools: {
        get_current_time: tool({
          description: "Current time",
          inputSchema: z.object({ timezone: z.string() }),
          execute: async (input) => {
            calls.push(input);
            return "12:34 UTC";
          }
        })
      },
      stopWhen: stepCountIs(3)
    });
    const { errors, text } = await drain(result);
    expect(errors).toEqual([]);
    expect(calls).toEqual([{ timezone: "UTC" }]);
    expect(text).toContain("Tool said:");
    expect(text).toContain("12:34 UTC");
    const steps = await result.steps;
    expect(steps).toHaveLength(2);
    expect(steps[0].finishReason).toBe("tool-calls");
    expect(steps[0].toolCalls[0].toolName).toBe("get_current_time");

    expect(fake.requests).toHaveLength(2);
    const second = fake.requests[1].body;
    expect(second.messages.some((m: any) => m.role === "tool")).toBe(true);
  });

  it("uses thenText after the tool result when given (non-streaming)", async () => {
    fake.setScenario({ kind: "tool-call", toolName: "lookup", args: {}, thenText: "All done." });
    const result = await generateText({
      model: model(),
      prompt: "look it up",
      tools: { lookup: tool({ inputSchema: z.object({}), execute: async () => ({ found: true }) }) },
      stopWhen: stepCountIs(3)
    });
    expect(result.text).toBe("All done.");
    expect(result.steps[0].toolCalls).toHaveLength(1);
  });

  it.each([401, 429, 500] as const)("surfaces HTTP %i as an API call error", async (status) => {
    fake.setScenario({ kind: "status", status });
    const err = await expectStatusError(generateText({ model: model(), prompt: "hi", maxRetries: 0 }), status);
    expect(err.isRetryable).toBe(status !== 401);
    expect(fake.requests).toHaveLength(1);

    const streamed = streamText({ ...quiet, model: model(), prompt: "hi", maxRetries: 0 });
    const { errors, deltas } = await drain(streamed);
    expect(deltas).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
    expect(APICallError.isInstance(errors[0]) && errors[0].statusCode).toBe(status);
  });

  it("sends retry-after headers and a custom error body when configured", async () => {
    fake.setScenario({
      kind: "status",
      status: 503,
      retryAfterSeconds: 7,
      body: { error: { message: "custom down" } }
    });
    const err = await expectStatusError(generateText({ model: model(), prompt: "hi", maxRetries: 0 }), 503);
    expect(err.responseHeaders?.["retry-after"]).toBe("7");
    expect(err.message).toContain("custom down");
  });

  it("sees the client close the connection when a hanging stream is aborted", async () => {
    fake.setScenario({ kind: "hang" });
    const controller = new AbortController();
    const result = streamText({ ...quiet, model: model(), prompt: "never answered", abortSignal: controller.signal });
    const drained = drain(result);
    const req = await fake.waitForRequest((r) => r.path === "/v1/chat/completions", 1000);
    controller.abort();
    await fake.waitForClientClose(req.id, 1000);
    expect(req.closedByClient).toBe(true);
    const { deltas } = await drained;
    expect(deltas).toEqual([]);
  });

  it("sees the client close the connection when a hang without headers is aborted", async () => {
    fake.setScenario({ kind: "hang", headers: false });
    const controller = new AbortController();
    const result = streamText({
      ...quiet,
      model: model(),
      prompt: "never answered",
      abortSignal: controller.signal,
      maxRetries: 0
    });
    const drained = drain(result);
    const req = await fake.waitForRequest(undefined, 1000);
    expect(req.status).toBeUndefined();
    controller.abort();
    await fake.waitForClientClose(req.id, 1000);
    await drained;
  });

  it("stops a slow stream when the client aborts mid-way", async () => {
    fake.setScenario({ kind: "text", text: "x".repeat(400), chunkDelayMs: 20 });
    const controller = new AbortController();
    const result = streamText({ ...quiet, model: model(), prompt: "slow please", abortSignal: controller.signal });
    const deltas: string[] = [];
    const reading = (async () => {
      try {
        for await (const d of result.textStream) {
          deltas.push(d);
          if (deltas.length === 3) controller.abort();
        }
      } catch {
        // aborted
      }
    })();
    const req = await fake.waitForRequest(undefined, 1000);
    await fake.waitForClientClose(req.id, 1500);
    await reading;
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.join("").length).toBeLessThan(400);
    expect(req.closedByClient).toBe(true);
  });

  it("rejects waitForClientClose when the server finished the response normally", async () => {
    await generateText({ model: model(), prompt: "done quickly" });
    const req = fake.requests[0];
    await expect(fake.waitForClientClose(req.id, 200)).rejects.toThrow(/without the client closing/);
  });

  it("ends the stream with an error when the connection is cut mid-stream", async () => {
    fake.setScenario({ kind: "cut", afterChunks: 3, text: "abcdefghijklmnopqrstuvwxyz" });
    const result = streamText({ ...quiet, model: model(), prompt: "cut me", maxRetries: 0 });
    const { deltas, errors, text } = await drain(result);
    expect(text).toBe("abcdefghijkl");
    expect(deltas.length).toBe(3);
    expect(errors.length).toBeGreaterThan(0);
    const req = fake.requests[0];
    expect(req.closedByClient).toBe(false);
  });

  it("produces an error for a malformed event stream", async () => {
    fake.setScenario({ kind: "malformed" });
    const result = streamText({ ...quiet, model: model(), prompt: "break", maxRetries: 0 });
    const { errors } = await drain(result);
    expect(errors.length).toBeGreaterThan(0);

    await expect(generateText({ model: model(), prompt: "break", maxRetries: 0 })).rejects.toThrow();
  });

  it("streams exactly N numbered chunks for the chunks scenario", async () => {
    fake.setScenario({ kind: "chunks", count: 2000 });
    const result = streamText({ ...quiet, model: model(), prompt: "bench" });
    const { deltas, errors } = await drain(result);
    expect(errors).toEqual([]);
    expect(deltas).toHaveLength(2000);
    expect(deltas[0]).toBe("t0 ");
    expect(deltas[1999]).toBe("t1999 ");
    expect((await result.usage).outputTokens).toBe(2000);
  });

  describe("timing, for benchmarks", () => {
    /** The content deltas of an SSE answer, read to the end. */
    async function contentOf(response: Response): Promise<string[]> {
      const text = await response.text();
      return text
        .split("\n\n")
        .filter((event) => event.startsWith("data: {"))
        .map((event) => JSON.parse(event.slice(6)).choices[0]?.delta?.content)
        .filter((content): content is string => typeof content === "string" && content.length > 0);
    }

    it("records when the request arrived and when its first and last chunk were written", async () => {
      const { deltas } = await drain(streamText({ ...quiet, model: model(), prompt: "[[fake:chunks=2000]] burst" }));
      expect(deltas.join("")).toBe(Array.from({ length: 2000 }, (_, i) => `t${i} `).join(""));
      const req = fake.requests.at(-1)!;
      expect(req.firstChunkAt).toBeGreaterThanOrEqual(req.arrivedAt);
      // 2,000 chunks are more than one 32 KiB write: the last goes out in a later one.
      expect(req.lastChunkAt).toBeGreaterThan(req.firstChunkAt!);
      expect(req.chunkAt).toBeUndefined();
    });

    it("paces chunks MS apart with slow=MS and records each chunk's write", async () => {
      await drain(streamText({ ...quiet, model: model(), prompt: "[[fake:chunks=4,slow=40]] paced" }));
      const { chunkAt, firstChunkAt, lastChunkAt } = fake.requests.at(-1)!;
      expect(chunkAt).toHaveLength(4);
      expect(firstChunkAt).toBe(chunkAt![0]);
      expect(lastChunkAt).toBe(chunkAt![3]);
      // Timers may fire a little early, never much.
      for (let i = 1; i < 4; i++) expect(chunkAt![i] - chunkAt![i - 1]).toBeGreaterThanOrEqual(35);
    });

    it("serves a chunks answer to a plain GET of /stream, recorded like any request", async () => {
      const content = await contentOf(await fetch(`${fake.origin}/stream?chunks=4&slow=5`));
      expect(content.join("")).toBe("t0 t1 t2 t3 ");
      const req = fake.requests.at(-1)!;
      expect(req).toMatchObject({ method: "GET", path: "/stream", scenario: "chunks", status: 200 });
      expect(req.chunkAt).toHaveLength(4);
    });

    it("answers with the scenario it was started with, also after a reset", async () => {
      const own = await startFakeOpenAI({ scenario: { kind: "chunks", count: 3 } });
      try {
        const ask = () =>
          fetch(`${own.url}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "fake-model", stream: true, messages: [{ role: "user", content: "hi" }] })
          });
        expect((await contentOf(await ask())).join("")).toBe("t0 t1 t2 ");
        own.setScenario({ kind: "text", text: "other" });
        own.reset();
        expect((await contentOf(await ask())).join("")).toBe("t0 t1 t2 ");
        expect(own.requests).toHaveLength(1);
      } finally {
        await own.close();
      }
    });
  });

  describe("directives in the last user message override the scenario", () => {
    it("[[fake:status=429]] returns a rate-limit error", async () => {
      fake.setScenario({ kind: "text", text: "should not be used" });
      await expectStatusError(generateText({ model: model(), prompt: "[[fake:status=429]] hi", maxRetries: 0 }), 429);
      expect(fake.requests[0].directive).toBe("[[fake:status=429]]");
      expect(fake.requests[0].scenario).toBe("status");
    });

    it("[[fake:chunks=5]] streams five chunks and plain text is echoed without the directive", async () => {
      const chunks = await drain(streamText({ ...quiet, model: model(), prompt: "go [[fake:chunks=5]]" }));
      expect(chunks.deltas).toEqual(["t0 ", "t1 ", "t2 ", "t3 ", "t4 "]);
      const slow = await drain(streamText({ ...quiet, model: model(), prompt: "[[fake:slow=5,chunk=2]] hey you" }));
      expect(slow.text).toBe("Echo: hey you");
      expect(slow.deltas[0]).toBe("Ec");
    });

    it("only the last user message is inspected", async () => {
      const result = await generateText({
        model: model(),
        messages: [
          { role: "user", content: "[[fake:status=500]] earlier" },
          { role: "assistant", content: "ok" },
          { role: "user", content: "later" }
        ],
        maxRetries: 0
      });
      expect(result.text).toBe("Echo: later");
    });

    it("[[fake:tool=NAME]] calls the tool with {} args", async () => {
      let executed = 0;
      const result = await generateText({
        model: model(),
        prompt: "[[fake:tool=get_current_time]] what time is it",
        tools: {
          get_current_time: tool({
            inputSchema: z.object({}),
            execute: async () => {
              executed++;
              return "noon";
            }
          })
        },
        stopWhen: stepCountIs(3)
      });
      expect(executed).toBe(1);
      expect(result.text).toContain("noon");
    });

    it("[[fake:hang]] and [[fake:cut=2]] and [[fake:malformed]] work per request", async () => {
      const controller = new AbortController();
      const hanging = drain(
        streamText({ ...quiet, model: model(), prompt: "[[fake:hang]]", abortSignal: controller.signal })
      );
      const req = await fake.waitForRequest((r) => r.directive === "[[fake:hang]]", 1000);
      controller.abort();
      await fake.waitForClientClose(req.id, 1000);
      await hanging;

      const cut = await drain(streamText({ ...quiet, model: model(), prompt: "[[fake:cut=2]]", maxRetries: 0 }));
      expect(cut.deltas).toHaveLength(2);
      expect(cut.errors.length).toBeGreaterThan(0);

      const bad = await drain(streamText({ ...quiet, model: model(), prompt: "[[fake:malformed]]", maxRetries: 0 }));
      expect(bad.errors.length).toBeGreaterThan(0);
    });
  });

  describe("fail-then", () => {
    it("succeeds after N failures when the SDK retries", async () => {
      fake.setScenario({ kind: "fail-then", failures: 2, status: 503, next: { kind: "text", text: "finally" } });
      const result = await generateText({ model: model(), prompt: "retry me", maxRetries: 2 });
      expect(result.text).toBe("finally");
      expect(fake.requests.map((r) => r.status)).toEqual([503, 503, 200]);
    });

    it("fails when the SDK gives up before N failures", async () => {
      fake.setScenario({ kind: "fail-then", failures: 3, status: 429, next: { kind: "text" } });
      await expect(generateText({ model: model(), prompt: "retry me", maxRetries: 1 })).rejects.toThrow();
      expect(fake.requests).toHaveLength(2);
    });

    it("[[fake:fail=2,status=503]] counts failures per directive string", async () => {
      const result = streamText({
        ...quiet,
        model: model(),
        prompt: "[[fake:fail=2,status=503]] hello",
        maxRetries: 3
      });
      const { text, errors } = await drain(result);
      expect(errors).toEqual([]);
      expect(text).toBe("Echo: hello");
      expect(fake.requests.map((r) => r.status)).toEqual([503, 503, 200]);

      // same directive again: the counter is exhausted, so it succeeds immediately
      const again = await generateText({ model: model(), prompt: "[[fake:fail=2,status=503]] hello", maxRetries: 0 });
      expect(again.text).toBe("Echo: hello");
      // a distinct directive string gets its own counter
      await expectStatusError(
        generateText({ model: model(), prompt: "[[fake:fail=1,status=429,id=b]] hello", maxRetries: 0 }),
        429
      );
    });
  });

  describe("HTTP surface for other processes", () => {
    it("lists models", async () => {
      const res = await fetch(`${fake.url}/models`);
      expect(res.status).toBe(200);
      const json = (await res.json()) as { object: string; data: Array<{ id: string }> };
      expect(json.object).toBe("list");
      expect(json.data.map((m) => m.id)).toEqual(["fake-model"]);
    });

    it("exposes requests, scenario and reset over /__fake", async () => {
      const base = fake.url.replace(/\/v1$/, "");
      const set = await fetch(`${base}/__fake/scenario`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind: "text", text: "from control api" })
      });
      expect(set.status).toBe(200);
      const result = await generateText({ model: model(), prompt: "anything" });
      expect(result.text).toBe("from control api");

      const listed = (await (await fetch(`${base}/__fake/requests`)).json()) as Array<Record<string, unknown>>;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ path: "/v1/chat/completions", closedByClient: false, status: 200 });

      const bad = await fetch(`${base}/__fake/scenario`, { method: "POST", body: JSON.stringify({ kind: "nope" }) });
      expect(bad.status).toBe(400);

      await fetch(`${base}/__fake/reset`, { method: "POST" });
      expect(fake.requests).toHaveLength(0);
      expect((await generateText({ model: model(), prompt: "again" })).text).toBe("Echo: again");
    });

    it("runs as a CLI under node --experimental-strip-types and stops on SIGTERM", async () => {
      const cli = fileURLToPath(new URL("../support/fake-openai-cli.ts", import.meta.url));
      const child = spawn(process.execPath, ["--experimental-strip-types", "--no-warnings", cli, "--port", "0"], {
        stdio: ["ignore", "pipe", "pipe"]
      });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = "";
          let errOut = "";
          child.stdout.on("data", (d: Buffer) => {
            out += d.toString();
            const m = /^FAKE_OPENAI_URL=(\S+)$/m.exec(out);
            if (m) resolve(m[1]);
          });
          child.stderr.on("data", (d: Buffer) => (errOut += d.toString()));
          child.on("exit", (code) => reject(new Error(`cli exited early (${code}): ${errOut}`)));
        });
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
        const remote = createOpenAI({ baseURL: url, apiKey: "test" });
        const result = await generateText({ model: remote.chat("fake-model"), prompt: "over the wire" });
        expect(result.text).toBe("Echo: over the wire");
      } finally {
        const exited = new Promise<number | null>((resolve) => {
          if (child.exitCode !== null) resolve(child.exitCode);
          else child.once("exit", (code) => resolve(code));
        });
        child.kill("SIGTERM");
        expect(await exited).toBe(0);
      }
    }, 10_000);
  });

  it("leaves no timers or sockets behind after close()", async () => {
    const own = await startFakeOpenAI();
    const client = createOpenAI({ baseURL: own.url, apiKey: "test" });
    own.setScenario({ kind: "text", text: "y".repeat(200), chunkDelayMs: 500 });
    const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timeouts();
    const result = streamText({ ...quiet, model: client.chat("fake-model"), prompt: "slow", maxRetries: 0 });
    const drained = drain(result);
    const request = await own.waitForRequest(undefined, 5_000);
    // Once it has answered 200 (headers and the first chunk), the fake waits
    // 500 ms for the next chunk: its timer is pending when close() comes.
    // The timer starts just after the status is set: wait for it, not for the status alone.
    await vi.waitFor(() => expect(request.status).toBe(200), { timeout: 5_000 });
    await vi.waitFor(() => expect(timeouts()).toBeGreaterThan(before), { timeout: 5_000 });
    await own.close();
    await drained;
    const timeoutsAfter = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    expect(timeoutsAfter).toBeLessThanOrEqual(before);
    // closing twice is harmless
    await own.close();
  });
});

describe("summary requests (the room's memory)", () => {
  const span = (lines: string[]) => `## Conversation to summarise (${lines.length} messages)\n\n${lines.join("\n")}`;

  it("answers with the first words of every line, recorded as a summary, within max_tokens", async () => {
    const result = await generateText({
      model: model(),
      system: "You keep the memory of a group chat room.",
      prompt: span(["[Ada] We chose Postgres for the main store.", "[Assistant] Noted, Postgres it is."])
    });
    expect(result.text).toBe(
      "Fake summary of 2 lines: [Ada] We chose Postgres for the main store.; [Assistant] Noted, Postgres it is."
    );
    expect(fake.requests.at(-1)?.summary).toBe(true);

    const cut = await generateText({ model: model(), prompt: span(["[Ada] one two three four"]), maxOutputTokens: 3 });
    expect(cut.text).toHaveLength(12);
    expect(cut.finishReason).toBe("length");

    const merged = await generateText({
      model: model(),
      prompt: "## Summaries to combine (2)\n\n### Part 1\nFirst part words\n\n### Part 2\nSecond part words"
    });
    expect(merged.text).toBe("Fake merged summary of 2 parts: First part words; Second part words");
  });

  it("honours sumslow and sumstatus only in summary requests", async () => {
    const started = performance.now();
    await generateText({ model: model(), prompt: span(["[Ada] [[fake:sumslow=300]] hello"]) });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    await expectStatusError(
      generateText({ model: model(), prompt: span(["[Ada] [[fake:sumstatus=500]] hi"]), maxRetries: 0 }),
      500
    );
    // An ordinary request carrying the same directive ignores it.
    const plain = await generateText({ model: model(), prompt: "[[fake:sumstatus=500]] hi", maxRetries: 0 });
    expect(plain.text).toBe("Echo: hi");
    expect(fake.requests.at(-1)?.summary).toBeUndefined();
  });
});

describe("one fake shared by many test files (keyed scripts, the HTTP client)", () => {
  const shared = () => fakeClient(fake.origin);

  it("answers only requests that carry a script's key, by model or in any message, and lets directives win", async () => {
    await shared().script("key-one", { kind: "text", text: "scripted one" });
    await shared().script("key-two", { kind: "text", text: "scripted two" });
    const ask = (prompt: string, system?: string, name = "fake-model") =>
      generateText({ model: openai.chat(name), prompt, ...(system ? { system } : {}) }).then((r) => r.text);
    expect(await ask("plain question")).toBe("Echo: plain question");
    expect(await ask("hello", "A room whose prompt holds key-one.")).toBe("scripted one");
    expect(await ask("and key-two in the message")).toBe("scripted two");
    expect(await ask("hello", undefined, "key-two")).toBe("scripted two");
    // Both keys: the most recently set script answers.
    expect(await ask("key-one and key-two")).toBe("scripted two");
    // A directive in the message still decides for its own request.
    expect(await ask("key-one [[fake:text=directed]]")).toBe("directed");
    expect(fake.requests.map((r) => r.scriptKey)).toEqual([
      undefined,
      "key-one",
      "key-two",
      "key-two",
      "key-two",
      undefined
    ]);
    // Scripted again with null: gone.
    await shared().script("key-two", null);
    expect(await ask("key-two again")).toBe("Echo: key-two again");
    // A script's fail-then counts its own requests.
    await shared().script("flaky-key", { kind: "fail-then", failures: 1, status: 503, next: { kind: "text" } });
    await expectStatusError(generateText({ model: model(), prompt: "flaky-key", maxRetries: 0 }), 503);
    expect(await ask("flaky-key")).toBe("Echo: flaky-key");
  });

  it("lists and waits only for the requests a file names", async () => {
    const client = shared();
    await generateText({ model: model(), prompt: "mine: marker-a" });
    await generateText({ model: model(), prompt: "someone else's" });
    expect((await client.requests("marker-a")).map((r) => r.lastUserText)).toEqual(["mine: marker-a"]);
    expect(await client.requests("marker-none")).toEqual([]);

    // A wait sees a request that comes later, and skips matches the predicate refuses.
    const waited = client.waitForRequest("marker-b", (r) => r.lastUserText === "second marker-b", 10_000);
    await generateText({ model: model(), prompt: "first marker-b" });
    await generateText({ model: model(), prompt: "second marker-b" });
    expect((await waited).lastUserText).toBe("second marker-b");
    await expect(client.waitForRequest("marker-never", undefined, 300)).rejects.toThrow(/no request matching/);
  });

  it("tells a request the client closed from one it answered", async () => {
    const client = shared();
    const abort = new AbortController();
    const result = streamText({
      ...quiet,
      model: model(),
      prompt: "[[fake:hang]] close-me",
      abortSignal: abort.signal,
      maxRetries: 0
    });
    const drained = drain(result);
    const hanging = await client.waitForRequest("close-me");
    abort.abort();
    await client.waitForClientClose(hanging.id, 5_000);
    await drained;

    await generateText({ model: model(), prompt: "answered-one" });
    const [answered] = await client.requests("answered-one");
    await expect(client.waitForClientClose(answered.id, 1_000)).rejects.toThrow(/without the client closing/);
  });
});

describe("gates", () => {
  it("hold a stream's last chunk until the gate opens", async () => {
    const result = streamText({ ...quiet, model: model(), prompt: "[[fake:chunks=5,gate=g1]] go", maxRetries: 0 });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type !== "text-delta") continue;
      seen.push(part.text);
      if (part.text === "t3 ") {
        // Everything before the last chunk is out; the last waits for the gate.
        const request = fake.requests.at(-1)!;
        expect(request.finishedAt).toBeUndefined();
        expect(request.lastChunkAt).toBeUndefined();
        await shared().openGate("g1");
      }
    }
    expect(seen.join("")).toBe("t0 t1 t2 t3 t4 ");
    // Open stays open: a later stream behind the same gate passes.
    const again = await drain(
      streamText({ ...quiet, model: model(), prompt: "[[fake:chunks=2,gate=g1]] again", maxRetries: 0 })
    );
    expect(again.text).toBe("t0 t1 ");
  });

  const shared = () => fakeClient(fake.origin);
});
