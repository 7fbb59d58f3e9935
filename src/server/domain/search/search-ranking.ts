/**
 * Search across rooms, the facet way: every room answers from its own
 * full-text index (the framework's Sessions FTS5 table), and the overseer
 * only merges the few best hits each room sends back. Nothing here touches
 * storage; the agents pass text in.
 */
import { compareSearchHits, type SearchHit, type TextRange } from "@/shared/search";

/** Rooms searched at once by the overseer: bounded, so 1,000 rooms do not wake at once. */
export const SEARCH_CONCURRENCY = 16;
/** How long a search waits for rooms before answering with what it has. */
const DEFAULT_SEARCH_DEADLINE_MS = 3_000;

export function searchDeadlineMs(env: { SEARCH_DEADLINE_MS?: string }): number {
  const n = Number(env.SEARCH_DEADLINE_MS);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 30_000) : DEFAULT_SEARCH_DEADLINE_MS;
}

/** Characters of context a snippet shows around its first match. */
const SNIPPET_LENGTH = 160;

/**
 * Words of a query, lower-cased. The framework's index matches the query
 * as one phrase with the porter stemmer, so "deploying" finds "deploy";
 * we mirror that loosely for marks and scoring by comparing stems.
 */
export function queryTerms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

/**
 * A crude stem, enough to make marks agree with the porter tokenizer on
 * the common English endings ("failed", "failing", "fails" → "fail").
 */
function stem(word: string): string {
  const w = word.toLowerCase();
  for (const suffix of ["ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s"]) {
    if (w.length - suffix.length >= 3 && w.endsWith(suffix)) return w.slice(0, -suffix.length);
  }
  return w;
}

interface Word {
  start: number;
  end: number;
  stem: string;
}

function words(text: string): Word[] {
  const out: Word[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    out.push({ start: match.index, end: match.index + match[0].length, stem: stem(match[0]) });
  }
  return out;
}

/** Ranges of `text` whose words match a query term (by stem, or as a prefix of a longer word). */
export function matchRanges(text: string, terms: string[]): TextRange[] {
  const stems = terms.map(stem);
  return words(text)
    .filter((w) => stems.some((s) => w.stem === s || w.stem.startsWith(s) || s.startsWith(w.stem)))
    .filter((w) => w.stem.length > 0)
    .map((w) => [w.start, w.end] as TextRange);
}

/**
 * A plain-text window of at most `length` characters around the first
 * match, with the matched words as ranges into the snippet. The client
 * renders ranges as <mark> elements; no HTML ever crosses the wire.
 */
export function makeSnippet(
  content: string,
  terms: string[],
  length = SNIPPET_LENGTH
): { snippet: string; marks: TextRange[] } {
  const text = content.replace(/\s+/g, " ").trim();
  const ranges = matchRanges(text, terms);
  const first = ranges[0]?.[0] ?? 0;
  let start = Math.max(0, first - Math.floor(length / 3));
  // Start on a word boundary when we cut into the text.
  if (start > 0) {
    const space = text.indexOf(" ", start);
    if (space !== -1 && space < first) start = space + 1;
  }
  let end = Math.min(text.length, start + length);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start && space > first) end = space;
  }
  const prefix = start > 0 ? "…" : "";
  const suffix = end < text.length ? "…" : "";
  const snippet = `${prefix}${text.slice(start, end)}${suffix}`;
  const marks = ranges
    .filter(([s, e]) => s >= start && e <= end)
    .map(([s, e]) => [s - start + prefix.length, e - start + prefix.length] as TextRange);
  return { snippet, marks };
}

/**
 * A score comparable across rooms. FTS5's bm25 rank is only meaningful
 * within one index (its statistics are per room), so rooms send their top
 * hits and we re-score them on the same scale: matched terms, saturating
 * term frequency, and a mild preference for shorter messages.
 */
export function scoreText(content: string, terms: string[]): number {
  if (terms.length === 0) return 0;
  const stems = terms.map(stem);
  const all = words(content);
  if (all.length === 0) return 0;
  let score = 0;
  for (const s of stems) {
    const tf = all.filter((w) => w.stem === s || w.stem.startsWith(s)).length;
    if (tf > 0) score += 1 + tf / (tf + 1.2);
  }
  const lengthPenalty = 1 / (1 + Math.log1p(all.length / 50));
  const phraseBonus = content.toLowerCase().includes(terms.join(" ")) ? 1 : 0;
  return score * lengthPenalty + phraseBonus;
}

/** Best first; ties broken by newer first, then by id for a stable order. */
export function rankHits<T extends Pick<SearchHit, "score" | "createdAt" | "messageId">>(
  hits: T[],
  limit: number
): T[] {
  return [...hits].sort(compareSearchHits).slice(0, limit);
}

export interface FanOutResult<K, T> {
  results: Array<{ key: K; value: T }>;
  /** Items not answered by the deadline (still running, or never started). */
  missed: K[];
  failed: Array<{ key: K; error: unknown }>;
}

/**
 * Runs `task` over `items` with at most `concurrency` in flight and stops
 * waiting at `deadlineMs`. Late answers are dropped, not awaited: the
 * caller reports them as missing instead of holding the response.
 *
 * The timer alone is not enough: rooms are facets in the overseer's own
 * isolate, so a room doing a long synchronous piece of work (building its
 * full-text index) holds the thread past the deadline, and its answer can
 * be delivered before the overdue timer runs. So every answer is also
 * checked against the clock: one that arrives after the deadline ends the
 * fan-out and counts as missing, as if the timer had fired first.
 */
export function fanOut<K, T>(
  items: K[],
  task: (item: K) => Promise<T>,
  options: { concurrency: number; deadlineMs: number; now?: () => number }
): Promise<FanOutResult<K, T>> {
  const now = options.now ?? Date.now;
  const endsAt = now() + options.deadlineMs;
  return new Promise((resolve) => {
    const results: Array<{ key: K; value: T }> = [];
    const failed: Array<{ key: K; error: unknown }> = [];
    const pending = new Set<K>(items);
    let next = 0;
    let inFlight = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ results, failed, missed: items.filter((item) => pending.has(item)) });
    };
    const timer = setTimeout(finish, options.deadlineMs);
    const launch = () => {
      while (!done && inFlight < options.concurrency && next < items.length) {
        const item = items[next++];
        inFlight++;
        task(item).then(
          (value) => settle(item, () => results.push({ key: item, value })),
          (error: unknown) => settle(item, () => failed.push({ key: item, error }))
        );
      }
      if (inFlight === 0 && next >= items.length) finish();
    };
    const settle = (item: K, record: () => void) => {
      inFlight--;
      if (done) return;
      if (now() > endsAt) return finish();
      pending.delete(item);
      record();
      launch();
    };
    launch();
  });
}
