import type { CodeHighlighterPlugin, HighlightOptions, HighlightResult } from "@streamdown/code";
import { describe, expect, it } from "vitest";
import { linesToWarm, warmingHighlighter } from "../../src/client/lib/warm-highlighter";

const themes: HighlightOptions["themes"] = ["github-light", "github-dark"];
const ts = (code: string, isIncomplete = false): HighlightOptions => ({ code, language: "ts", themes, isIncomplete });

/**
 * @streamdown/code as it behaves on a busy CPU: its grammar is compiled a
 * rule per tokenization, and a line tokenized before it is all compiled runs
 * out of time, its first few words separate and the rest one token. Like the
 * real one it answers a cache miss with null and then the callback, and
 * caches complete blocks' results.
 */
function coldPlugin(rules: number) {
  let compiled = 0;
  const cache = new Map<string, HighlightResult>();
  const tokenize = (code: string): HighlightResult => {
    compiled++;
    const tokens = code.split("\n").map((line) => {
      const words = line.split(" ");
      const parts = compiled < rules ? [...words.slice(0, compiled), words.slice(compiled).join(" ")] : words;
      return parts.filter(Boolean).map((content, i) => ({ content, offset: 0, color: `#${i}` }));
    });
    return { tokens, fg: "#000", bg: "#fff", themeName: "x" } as HighlightResult;
  };
  const plugin = {
    name: "shiki",
    type: "code-highlighter",
    getSupportedLanguages: () => ["ts"],
    getThemes: () => themes,
    supportsLanguage: () => true,
    highlight({ code, isIncomplete }, callback) {
      const cached = cache.get(code);
      if (cached) return cached;
      void Promise.resolve().then(() => {
        const result = tokenize(code);
        if (!isIncomplete) cache.set(code, result);
        callback?.(result);
      });
      return null;
    }
  } satisfies CodeHighlighterPlugin;
  return { plugin, cache };
}

const whole = (code: string) => code.split("\n").map((line) => line.split(" "));
const words = (result: HighlightResult) => result.tokens.map((line) => line.map((token) => token.content));

function highlighted(plugin: CodeHighlighterPlugin, options: HighlightOptions): Promise<HighlightResult> {
  return new Promise((resolve) => {
    const result = plugin.highlight(options, resolve);
    if (result) resolve(result);
  });
}

describe("warmingHighlighter", () => {
  it("shows (and lets the plugin cache) a language's first block only once its lines come out whole", async () => {
    const code = "const answer: number = 42;\nexport default answer;";
    const cold = coldPlugin(3);
    expect(words(await highlighted(cold.plugin, ts(code)))).not.toEqual(whole(code));

    const { plugin, cache } = coldPlugin(3);
    const warmed = warmingHighlighter(plugin);
    const calls: HighlightResult[] = [];
    expect(warmed.highlight(ts(code), (result) => calls.push(result))).toBeNull();
    await expect.poll(() => calls.length).toBe(1);
    expect(words(calls[0])).toEqual(whole(code));
    expect([...cache.values()].map(words)).toEqual([whole(code)]);
    // Warm, its lines answer from the plugin directly, its cache included.
    expect(words(warmed.highlight(ts(code)) ?? { tokens: [] })).toEqual(whole(code));
  });

  it("holds every block of the language while a warm-up runs, and warms new lines before showing them", async () => {
    const { plugin } = coldPlugin(4);
    const warmed = warmingHighlighter(plugin);
    const first = highlighted(warmed, ts("let a = 1;\nlet b", true));
    const second = highlighted(warmed, ts("let a = 1;\nlet b = 2;"));
    expect(words(await first)).toEqual(whole("let a = 1;\nlet b"));
    expect(words(await second)).toEqual(whole("let a = 1;\nlet b = 2;"));
    expect(words(await highlighted(warmed, ts("let c = 3;")))).toEqual(whole("let c = 3;"));
  });
});

describe("linesToWarm", () => {
  it("takes each new, short, non-blank line once, and leaves a streaming block's last line for later", () => {
    const warmed = new Set(["seen"]);
    const long = "x".repeat(201);
    expect(linesToWarm(ts(`seen\n\n  \nnew\n${long}\nnew\nstill typing`, true), warmed)).toEqual(["new"]);
    expect(linesToWarm(ts("new\nstill typing"), warmed)).toEqual(["still typing"]);
    expect([...warmed]).toEqual(["seen", "new", "still typing"]);
  });

  it("stops at 100 lines a language", () => {
    const warmed = new Set<string>();
    const code = Array.from({ length: 150 }, (_, i) => `line ${i}`).join("\n");
    expect(linesToWarm(ts(code), warmed)).toHaveLength(100);
    expect(linesToWarm(ts("one more"), warmed)).toEqual([]);
  });
});
