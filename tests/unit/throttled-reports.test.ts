import { afterEach, describe, expect, it, vi } from "vitest";
import { ThrottledReports } from "@/server/domain/rooms/throttled-reports";

describe("coalesced activity reports", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup() {
    vi.useFakeTimers({ toFake: ["setTimeout", "Date"] });
    const sent: number[] = [];
    const reports = new ThrottledReports(
      async () => {
        sent.push(Date.now());
      },
      () => {},
      250
    );
    return { sent, reports };
  }

  it("sends the first report at once and folds later ones into one trailing report per interval", async () => {
    const { sent, reports } = setup();
    const start = Date.now();
    reports.request();
    expect(sent).toEqual([start]);
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(10);
      reports.request();
    }
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(sent).toEqual([start, start + 250]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(2); // nothing more was asked
  });

  it("sends at once again after a quiet interval", async () => {
    const { sent, reports } = setup();
    reports.request();
    await vi.advanceTimersByTimeAsync(400);
    reports.request();
    expect(sent).toHaveLength(2);
  });

  it("never sends more than one report per interval however often it is asked", async () => {
    const { sent, reports } = setup();
    for (let i = 0; i < 200; i++) {
      reports.request();
      await vi.advanceTimersByTimeAsync(7);
    }
    await vi.advanceTimersByTimeAsync(500);
    for (let i = 1; i < sent.length; i++) expect(sent[i] - sent[i - 1]).toBeGreaterThanOrEqual(250);
    expect(sent.at(-1)).toBeGreaterThanOrEqual(sent[0] + 199 * 7 - 250); // the last request was still reported
  });
});

describe("a deferred report (a turn's start)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup() {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const sent: number[] = [];
    const settled: Promise<unknown>[] = [];
    const reports = new ThrottledReports(
      async () => {
        sent.push(Date.now());
      },
      (promise) => settled.push(promise),
      250
    );
    return { sent, settled, reports };
  }

  it("is not sent at once, but within one interval", async () => {
    const { sent, reports } = setup();
    const start = Date.now();
    reports.defer();
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(249);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual([start + 250]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(1);
  });

  it("rides on a report asked for before it is due: a short turn's start and end make one report", async () => {
    const { sent, settled, reports } = setup();
    const start = Date.now();
    reports.defer();
    await vi.advanceTimersByTimeAsync(40);
    reports.request(); // the turn ended
    expect(sent).toEqual([start + 40]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual([start + 40]);
    // The deferred timer's waitUntil promise settled when the report went early.
    await expect(Promise.all(settled)).resolves.toBeDefined();
  });

  it("waits for the interval after a report just sent, and never sends twice within it", async () => {
    const { sent, reports } = setup();
    const start = Date.now();
    reports.request();
    await vi.advanceTimersByTimeAsync(100);
    reports.defer();
    reports.request();
    await vi.advanceTimersByTimeAsync(150);
    expect(sent).toEqual([start, start + 250]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual([start, start + 250]);
  });
});
