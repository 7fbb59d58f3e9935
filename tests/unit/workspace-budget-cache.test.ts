import { describe, expect, it } from "vitest";
import {
  BudgetFigureHolders,
  FIGURE_HOLDER_WINDOW_MS,
  FIGURE_MAX_AGE_MS,
  WorkspaceBudgetCache,
  type WorkspaceBudgetFigure
} from "@/server/domain/budgets/workspace-budget-cache";

const NOON = Date.UTC(2026, 11, 1, 12, 0, 0);

function figure(over: Partial<WorkspaceBudgetFigure> = {}): WorkspaceBudgetFigure {
  return { dailyTokenBudget: 10_000, tokensToday: 1_000, at: NOON, epoch: 1, ...over };
}

describe("a room's copy of its workspace's budget", () => {
  it("asks when it holds no figure", () => {
    expect(new WorkspaceBudgetCache().verdict(0, NOON)).toEqual({ ask: true, why: "missing" });
  });

  it("judges on a fresh figure far from the limit, counting the room's own use since", () => {
    const cache = new WorkspaceBudgetCache();
    cache.learn(figure(), 200);
    expect(cache.verdict(200, NOON + 10)).toEqual({ ask: false, budget: 10_000, used: 1_000 });
    // The room used 500 more since the figure: they count, the overseer has not heard of them.
    expect(cache.verdict(700, NOON + 10)).toEqual({ ask: false, budget: 10_000, used: 1_500 });
  });

  it("asks once the figure is older than its life, or from another UTC day", () => {
    const cache = new WorkspaceBudgetCache();
    cache.learn(figure(), 0);
    expect(cache.verdict(0, NOON + FIGURE_MAX_AGE_MS).ask).toBe(false);
    expect(cache.verdict(0, NOON + FIGURE_MAX_AGE_MS + 1)).toEqual({ ask: true, why: "stale" });
    const late = new WorkspaceBudgetCache();
    const beforeMidnight = Date.UTC(2026, 11, 1, 23, 59, 59, 999);
    late.learn(figure({ at: beforeMidnight }), 0);
    expect(late.verdict(0, beforeMidnight + 1)).toEqual({ ask: true, why: "new_day" });
  });

  it("asks near the limit and over it, so a raised budget counts from the next turn", () => {
    const cache = new WorkspaceBudgetCache();
    cache.learn(figure({ tokensToday: 8_999 }), 0);
    expect(cache.verdict(0, NOON).ask).toBe(false);
    // Within 10% of the budget: ask.
    expect(cache.verdict(1, NOON)).toEqual({ ask: true, why: "near_limit" });
    cache.learn(figure({ tokensToday: 12_000, at: NOON + 1 }), 0);
    expect(cache.verdict(0, NOON + 1)).toEqual({ ask: true, why: "near_limit" });
  });

  it("never asks for an unlimited workspace while the figure is fresh", () => {
    const cache = new WorkspaceBudgetCache();
    cache.learn(figure({ dailyTokenBudget: 0, tokensToday: 5_000_000 }), 0);
    expect(cache.verdict(1_000_000, NOON + 1)).toEqual({ ask: false, budget: 0, used: 6_000_000 });
  });

  it("drops its figure on the overseer's notice, and takes none computed before it", () => {
    const cache = new WorkspaceBudgetCache();
    cache.learn(figure({ epoch: 5 }), 0);
    cache.void(6);
    expect(cache.verdict(0, NOON)).toEqual({ ask: true, why: "missing" });
    // An answer computed before the notice, arriving after it.
    cache.learn(figure({ epoch: 5, at: NOON + 1 }), 0);
    expect(cache.figure).toBeNull();
    cache.learn(figure({ epoch: 6, at: NOON + 2, tokensToday: 2_000 }), 0);
    expect(cache.verdict(0, NOON + 3)).toEqual({ ask: false, budget: 10_000, used: 2_000 });
  });

  it("keeps the newer figure when answers arrive out of order", () => {
    const cache = new WorkspaceBudgetCache();
    cache.learn(figure({ at: NOON + 100, tokensToday: 3_000 }), 0);
    cache.learn(figure({ at: NOON + 50, tokensToday: 2_000 }), 0);
    expect(cache.figure?.tokensToday).toBe(3_000);
  });
});

describe("the overseer's list of rooms holding a copy", () => {
  it("voids only copies still alive, raises the epoch each time, and forgets who was told", () => {
    const holders = new BudgetFigureHolders(NOON);
    const old = holders.give("old", 100, 0, NOON);
    holders.give("recent", 100, 0, NOON + 5_000);
    holders.give("gone", 100, 0, NOON + 5_000);
    holders.forget("gone");
    const first = holders.voidCopies(NOON + FIGURE_HOLDER_WINDOW_MS + 1);
    expect(first.rooms).toEqual(["recent"]);
    expect(first.epoch).toBeGreaterThan(old.epoch);
    // A figure given after the notice carries its epoch; a room told nothing since holds no copy.
    expect(holders.give("recent", 100, 0, NOON + 8_000).epoch).toBe(first.epoch);
    const second = holders.voidCopies(NOON + 8_000);
    expect(second.rooms).toEqual(["recent"]);
    expect(second.epoch).toBeGreaterThan(first.epoch);
    expect(holders.voidCopies(NOON + 8_000).rooms).toEqual([]);
  });

  it("counts only crossing the budget, either way, as a change of verdict", () => {
    expect(BudgetFigureHolders.crosses(100, 50, 99)).toBe(false);
    expect(BudgetFigureHolders.crosses(100, 99, 100)).toBe(true);
    expect(BudgetFigureHolders.crosses(100, 120, 130)).toBe(false);
    expect(BudgetFigureHolders.crosses(100, 120, 0)).toBe(true); // a new day's reports
    expect(BudgetFigureHolders.crosses(0, 0, 1_000_000)).toBe(false); // unlimited
  });
});
