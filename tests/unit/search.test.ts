import { describe, expect, it, vi } from "vitest";
import {
  fanOut,
  makeSnippet,
  matchRanges,
  queryTerms,
  rankHits,
  scoreText
} from "@/server/domain/search/search-ranking";

const marked = (snippet: string, marks: [number, number][]) => marks.map(([s, e]) => snippet.slice(s, e));

describe("search snippets", () => {
  it("marks every matched word, including stemmed forms, as ranges into plain text", () => {
    const { snippet, marks } = makeSnippet("The deploy failed twice; deploying again fixed the failing job.", [
      "deploy",
      "failed"
    ]);
    expect(snippet).toBe("The deploy failed twice; deploying again fixed the failing job.");
    expect(marked(snippet, marks)).toEqual(["deploy", "failed", "deploying", "failing"]);
  });

  it("cuts a window around the first match with ellipses, and keeps marks aligned", () => {
    const long = `${"lorem ipsum ".repeat(40)}the needle is here ${"dolor sit ".repeat(40)}`;
    const { snippet, marks } = makeSnippet(long, ["needle"], 80);
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(82);
    expect(marked(snippet, marks)).toEqual(["needle"]);
  });

  it("never turns markup in a message into markup: the snippet is the text as written", () => {
    const { snippet, marks } = makeSnippet('<img src=x onerror="alert(1)"> payload here', ["payload"]);
    expect(snippet).toContain('<img src=x onerror="alert(1)">');
    expect(marked(snippet, marks)).toEqual(["payload"]);
  });

  it("splits queries into distinct lower-case words", () => {
    expect(queryTerms('  Deploy "FAILED" deploy!  ')).toEqual(["deploy", "failed"]);
    expect(queryTerms("?!")).toEqual([]);
    expect(matchRanges("Ünïcode wörds", ["wörds"])).toEqual([[8, 13]]);
  });
});

describe("cross-room ranking", () => {
  it("scores more matched terms and denser matches higher", () => {
    const terms = ["kubernetes", "upgrade"];
    const both = scoreText("kubernetes upgrade plan", terms);
    const one = scoreText("kubernetes plan", terms);
    const diluted = scoreText(`kubernetes upgrade ${"filler words ".repeat(200)}`, terms);
    expect(both).toBeGreaterThan(one);
    expect(both).toBeGreaterThan(diluted);
    expect(scoreText("nothing relevant", terms)).toBe(0);
  });

  it("orders by score, then newest, and keeps only the limit", () => {
    const hits = [
      { messageId: "a", score: 1, createdAt: 5 },
      { messageId: "b", score: 3, createdAt: 1 },
      { messageId: "c", score: 1, createdAt: 9 }
    ];
    expect(rankHits(hits, 2).map((h) => h.messageId)).toEqual(["b", "c"]);
  });
});

describe("bounded fan-out with a deadline", () => {
  it("never runs more than the concurrency at once and gathers every answer", async () => {
    let running = 0;
    let peak = 0;
    // Each item holds until the test lets it finish, one at a time.
    const held: Array<() => void> = [];
    const pending = fanOut(
      Array.from({ length: 20 }, (_, i) => i),
      async (i) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((release) => held.push(release));
        running--;
        return i * 2;
      },
      { concurrency: 3, deadlineMs: 10_000 }
    );
    for (let finished = 0; finished < 20; finished++) {
      // With every running item held, the fan-out fills exactly its concurrency (fewer at the end).
      await vi.waitFor(() => expect(held.length).toBe(Math.min(3, 20 - finished)), { timeout: 5_000 });
      expect(running).toBe(held.length);
      held.shift()?.();
    }
    const outcome = await pending;
    expect(peak).toBe(3);
    expect(outcome.results.map((r) => r.value).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i * 2)
    );
    expect(outcome.missed).toEqual([]);
  });

  it("answers at the deadline, reporting slow and never-started items as missed and failures as failed", async () => {
    const never = new Promise<number>(() => {});
    const started: string[] = [];
    const t0 = Date.now();
    const outcome = await fanOut(
      ["fast", "slow", "broken", "queued"],
      (item) => {
        started.push(item);
        if (item === "slow") return never;
        if (item === "broken") return Promise.reject(new Error("boom"));
        return Promise.resolve(1);
      },
      { concurrency: 2, deadlineMs: 200 }
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(outcome.results.map((r) => r.key).sort()).toEqual(["fast", "queued"]);
    expect(outcome.failed.map((f) => f.key)).toEqual(["broken"]);
    expect(outcome.missed).toEqual(["slow"]);
  });

  it("counts an answer that arrives after the deadline as missed, even before the timer has run", async () => {
    // A room that holds the shared thread past the deadline delivers its answer before the overdue timer fires.
    let clock = 1_000;
    const outcome = await fanOut(
      ["quick", "blocking", "after"],
      async (item) => {
        if (item === "blocking") clock += 500;
        return item;
      },
      { concurrency: 1, deadlineMs: 100, now: () => clock }
    );
    expect(outcome.results.map((r) => r.key)).toEqual(["quick"]);
    expect(outcome.missed).toEqual(["blocking", "after"]);
  });

  it("answers at once for no items", async () => {
    expect(await fanOut([], async () => 1, { concurrency: 4, deadlineMs: 60_000 })).toEqual({
      results: [],
      failed: [],
      missed: []
    });
  });
});
