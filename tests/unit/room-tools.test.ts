import type { LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { asSchema, type FlexibleSchema, generateText, stepCountIs, type ToolExecutionOptions } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { createRoomTools, type HistorySearchHit, MAX_TOOL_STEPS } from "@/server/domain/turns/room-tools";

const FIXED = new Date("2025-03-14T15:09:26.000Z");
const opts: ToolExecutionOptions<never> = {
  toolCallId: "call-1",
  messages: [],
  context: undefined as never
};

function setup(hits: HistorySearchHit[] = []) {
  const calls: Array<{ query: string; limit: number }> = [];
  const tools = createRoomTools({
    now: () => FIXED,
    searchHistory: async (query, limit) => {
      calls.push({ query, limit });
      return hits;
    }
  });
  return { tools, calls };
}

/** Validation as the AI SDK runs it on a tool call's input. */
async function parse(schema: FlexibleSchema<unknown>, value: unknown) {
  const result = await asSchema(schema).validate!(value);
  return result.success ? { success: true, data: result.value } : { success: false };
}

describe("get_current_time", () => {
  it("uses the injected clock and defaults to UTC", async () => {
    const { tools } = setup();
    const result = await tools.get_current_time.execute!({}, opts);
    expect(result).toEqual({
      iso: "2025-03-14T15:09:26.000Z",
      timeZone: "UTC",
      formatted: expect.stringContaining("Friday, March 14, 2025")
    });
    expect((result as { formatted: string }).formatted).toContain("3:09:26");
  });

  it("formats in the requested IANA time zone", async () => {
    const { tools } = setup();
    const result = await tools.get_current_time.execute!({ timeZone: "Asia/Tokyo" }, opts);
    expect(result).toMatchObject({ iso: "2025-03-14T15:09:26.000Z", timeZone: "Asia/Tokyo" });
    // 15:09 UTC is 00:09 the next day in Tokyo.
    expect((result as { formatted: string }).formatted).toContain("Saturday, March 15, 2025");
    expect((result as { formatted: string }).formatted).toContain("12:09:26 AM");
  });

  it("returns a readable error object for an unknown time zone instead of throwing", async () => {
    const { tools } = setup();
    const result = await tools.get_current_time.execute!({ timeZone: "Mars/Olympus_Mons" }, opts);
    expect(result).toMatchObject({ timeZone: "Mars/Olympus_Mons" });
    expect((result as { error: string }).error).toMatch(/Unknown time zone "Mars\/Olympus_Mons"/);
    expect(result).not.toHaveProperty("iso");
  });

  it("has a description that tells the model when to use it", () => {
    const { tools } = setup();
    expect(tools.get_current_time.description).toMatch(/date|time/i);
  });
});

describe("search_room_history", () => {
  const hits: HistorySearchHit[] = [
    { messageId: "m1", role: "user", snippet: "we decided on the blue theme" },
    { messageId: "m2", role: "assistant", snippet: "the blue theme is now default" }
  ];

  it("passes query and limit through and returns the hits", async () => {
    const { tools, calls } = setup(hits);
    const result = await tools.search_room_history.execute!({ query: "blue theme", limit: 7 }, opts);
    expect(calls).toEqual([{ query: "blue theme", limit: 7 }]);
    expect(result).toEqual({ hits });
  });

  it("never returns more hits than the limit, even if the search does", async () => {
    const { tools } = setup(hits);
    const result = await tools.search_room_history.execute!({ query: "blue", limit: 1 }, opts);
    expect(result).toEqual({ hits: [hits[0]] });
  });

  it("validates input through its schema: query 1..200 chars, limit 1..20 defaulting to 5", async () => {
    const { tools } = setup();
    const schema = tools.search_room_history.inputSchema;
    expect((await parse(schema, { query: "" })).success).toBe(false);
    expect((await parse(schema, { query: "   " })).success).toBe(false);
    expect((await parse(schema, { query: "x".repeat(201) })).success).toBe(false);
    expect((await parse(schema, { query: "x".repeat(200) })).success).toBe(true);
    expect((await parse(schema, { query: "ok", limit: 0 })).success).toBe(false);
    expect((await parse(schema, { query: "ok", limit: 21 })).success).toBe(false);
    expect((await parse(schema, { query: "ok", limit: 2.5 })).success).toBe(false);
    expect((await parse(schema, { query: "ok" })).data).toEqual({ query: "ok", limit: 5 });
  });

  it("has a description that tells the model when to use it", () => {
    const { tools } = setup();
    expect(tools.search_room_history.description).toMatch(/earlier messages/i);
  });
});

describe("room tools inside the AI SDK tool loop", () => {
  const usage: LanguageModelV4GenerateResult["usage"] = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 }
  };

  it("executes a model's search call with the default limit and feeds the result back", async () => {
    const hits: HistorySearchHit[] = [{ messageId: "m9", role: "user", snippet: "ship it on Friday" }];
    const { tools, calls } = setup(hits);
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            {
              type: "tool-call",
              toolCallId: "c1",
              toolName: "search_room_history",
              input: JSON.stringify({ query: "ship" })
            }
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: []
        },
        {
          content: [{ type: "text", text: "You said to ship it on Friday." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: []
        }
      ]
    });

    const result = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(MAX_TOOL_STEPS),
      prompt: "When did we say we'd ship?"
    });

    expect(calls).toEqual([{ query: "ship", limit: 5 }]);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.toolResults[0]!.output).toEqual({ hits });
    expect(result.text).toBe("You said to ship it on Friday.");
    // The second model call saw the tool result.
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain("ship it on Friday");
  });

  it("converts each input schema to JSON schema once, not on every turn", () => {
    const first = setup().tools;
    const second = setup().tools;
    for (const name of ["get_current_time", "search_room_history"] as const) {
      const [before, after] = [first[name].inputSchema, second[name].inputSchema] as FlexibleSchema<unknown>[];
      expect(after).toBe(before);
      expect(asSchema(after).jsonSchema).toBe(asSchema(before).jsonSchema);
    }
  });

  it("offers both tools to the model with JSON schemas", async () => {
    const { tools } = setup();
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "ok" }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: []
      }
    });
    await generateText({ model, tools, prompt: "hi" });
    const offered = model.doGenerateCalls[0]!.tools!;
    expect(offered.map((t) => t.name).sort()).toEqual(["get_current_time", "search_room_history"]);
    const search = offered.find((t) => t.name === "search_room_history") as { inputSchema: { required?: string[] } };
    expect(search.inputSchema.required).toEqual(["query"]);
  });
});

describe("MAX_TOOL_STEPS", () => {
  it("is a small positive step limit", () => {
    expect(MAX_TOOL_STEPS).toBe(5);
  });
});
