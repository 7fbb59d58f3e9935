import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { UsageLedger } from "../../src/server/agents/room/usage-ledger";
import { uniqueName } from "./helpers";

// What a room keeps in memory to spare a turn its SQL, checked against the
// tables themselves: a copy that went stale would answer differently from a
// fresh read. The SQL is a real Durable Object's (a plain AuthKeeper used
// as a sandbox), so statements run exactly as in a room.

function inSql(body: (sql: SqlStorage) => void): Promise<void> {
  const stub = env.AuthKeeper.get(env.AuthKeeper.idFromName(uniqueName()));
  return runInDurableObject(stub, (_instance, state) => body(state.storage.sql));
}

const DAY = 86_400_000;
const usage = (totalTokens: number) => ({ inputTokens: totalTokens - 1, outputTokens: 1, totalTokens });

describe("the usage ledger's total for today", () => {
  it("is what a fresh read of the table says, after every write and across days", async () => {
    await inSql((sql) => {
      const ledger = new UsageLedger(sql);
      const uncached = (now: number) => new UsageLedger(sql).today(now);
      const day1 = Date.UTC(2026, 11, 1, 10);
      const day2 = day1 + DAY;

      expect(ledger.today(day1)).toBe(0);
      ledger.add(usage(7), day1);
      expect(ledger.today(day1)).toBe(7);
      ledger.add(usage(5), day1 + 1000);
      expect([ledger.today(day1), uncached(day1)]).toEqual([12, 12]);

      expect(ledger.today(day2)).toBe(0);
      ledger.add(usage(3), day2);
      expect([ledger.today(day2), uncached(day2)]).toEqual([3, 3]);
      // Back to the first day: read again, not yesterday's copy of another day.
      expect(ledger.today(day1)).toBe(12);
      ledger.add(usage(2), day1 + 2000);
      expect([ledger.today(day1), uncached(day1)]).toEqual([14, 14]);
      expect(ledger.today(day2)).toBe(3);
    });
  });

  it("still drops days older than a week, once the week has passed", async () => {
    await inSql((sql) => {
      const ledger = new UsageLedger(sql);
      const day1 = Date.UTC(2026, 11, 1, 10);
      const days = () => sql.exec<{ day: string }>("SELECT day FROM rooms_usage_daily ORDER BY day").toArray();
      ledger.add(usage(7), day1);
      ledger.add(usage(7), day1 + 3 * DAY);
      ledger.add(usage(7), day1 + 3 * DAY + 1000);
      expect(days().map((r) => r.day)).toEqual(["2026-12-01", "2026-12-04"]);
      ledger.add(usage(7), day1 + 8 * DAY);
      expect(days().map((r) => r.day)).toEqual(["2026-12-04", "2026-12-09"]);
      expect(ledger.today(day1)).toBe(0);
    });
  });
});
