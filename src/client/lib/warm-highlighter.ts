/**
 * Code highlighting that comes out right on a busy CPU.
 *
 * Shiki gives each line 500 ms to tokenize (its `tokenizeTimeLimit`, which
 * @streamdown/code does not let us set) and past that leaves the rest of the
 * line as one token, without a word. A grammar's regular expressions are
 * compiled when first needed, inside that budget: for TypeScript about 0.4 s
 * of a core here (Node), so with the CPU shared (a loaded machine, a slow
 * phone) a page's first block of a language came out in one colour, the first
 * token's. @streamdown/code then keeps that result, in its cache for the
 * page's life and as the rows a streaming block's later updates continue
 * from; a reload compiles afresh and, still busy, can fail the same way.
 *
 * So a block's lines are warmed before it is highlighted: each line the
 * language has not had yet is highlighted on its own, uncached (a single line
 * is tokenized afresh every time; complete lines of a block are kept to
 * continue from), over and over until two passes agree. Each pass compiles
 * what the one before ran out of time for, so agreeing means nothing was cut
 * short, and the block itself then tokenizes in milliseconds. Only the first
 * lines a page shows of each language are warmed, and only short ones (a
 * long line can take its whole budget warm): by then the grammar's common
 * rules are compiled.
 */
import type { CodeHighlighterPlugin, HighlightOptions, HighlightResult } from "@streamdown/code";

/** Lines warmed per language, the longest line warmed, and the passes after which a round stops waiting to agree. */
const WARM_LINES = 100;
const WARM_LINE_CHARS = 200;
const MAX_PASSES = 6;

interface Warmth {
  lines: Set<string>;
  /** Settles when every round asked for so far has; rounds run one after another. */
  ready: Promise<void>;
  rounds: number;
}

export function warmingHighlighter(plugin: CodeHighlighterPlugin): CodeHighlighterPlugin {
  const languages = new Map<string, Warmth>();
  const warmthOf = (language: string) => {
    let warmth = languages.get(language);
    if (!warmth) {
      warmth = { lines: new Set(), ready: Promise.resolve(), rounds: 0 };
      languages.set(language, warmth);
    }
    return warmth;
  };
  return {
    ...plugin,
    highlight(options, callback) {
      const warmth = warmthOf(options.language);
      const fresh = linesToWarm(options, warmth.lines);
      if (fresh.length > 0) {
        warmth.rounds++;
        warmth.ready = warmth.ready
          .then(() => warm(plugin, options, fresh))
          // A warm-up that fails leaves the block to be highlighted cold, as without it.
          .catch(() => {})
          .finally(() => warmth.rounds--);
      }
      if (warmth.rounds === 0) return plugin.highlight(options, callback);
      warmth.ready.then(() => {
        const result = plugin.highlight(options, callback);
        if (result) callback?.(result);
      });
      return null;
    }
  };
}

/**
 * The lines of `code` this language has not been warmed with, taken into
 * `warmed`. A streaming block's last line is still being written: it is
 * highlighted again with the next update and kept by nobody, so it waits.
 */
export function linesToWarm({ code, isIncomplete }: HighlightOptions, warmed: Set<string>): string[] {
  const lines = code.split("\n");
  if (isIncomplete) lines.pop();
  const fresh: string[] = [];
  for (const line of lines) {
    if (warmed.size >= WARM_LINES) break;
    if (line.trim() === "" || line.length > WARM_LINE_CHARS || warmed.has(line)) continue;
    warmed.add(line);
    fresh.push(line);
  }
  return fresh;
}

async function warm(plugin: CodeHighlighterPlugin, { language, themes }: HighlightOptions, lines: string[]) {
  let previous = "";
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const results = await Promise.all(
      lines.map((code) => highlightOnce(plugin, { code, language, themes, isIncomplete: true }))
    );
    const tokens = JSON.stringify(results.map((result) => result.tokens));
    if (tokens === previous) return;
    previous = tokens;
  }
}

function highlightOnce(plugin: CodeHighlighterPlugin, options: HighlightOptions): Promise<HighlightResult> {
  return new Promise((resolve) => {
    const result = plugin.highlight(options, resolve);
    if (result) resolve(result);
  });
}
