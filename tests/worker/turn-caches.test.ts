import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RoomTraceStore, type SpanStart } from "@/server/agents/room/trace-store";
import { UsageLedger } from "@/server/agents/room/usage-ledger";
import { MAX_SPANS_PER_TRACE } from "@/server/domain/tracing/trace-spans";
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

const span = (traceId: string, spanId: string, startedAt: number, kind: SpanStart["kind"] = "turn"): SpanStart => ({
  traceId,
  spanId,
  parentSpanId: null,
  name: kind,
  kind,
  startedAt
});

describe("the trace store's count of traces", () => {
  it("keeps exactly the newest traces up to the cap, trace after trace", async () => {
    await inSql((sql) => {
      const store = new RoomTraceStore(sql, () => "room", 3);
      for (let i = 1; i <= 8; i++) {
        expect(store.start(span(`t${i}`, "root", 1000 + i, "request"))).toBe(true);
        // A later span of the same trace adds no trace.
        store.start(span(`t${i}`, "turn", 1000 + i));
        expect(store.list(50).map((t) => t.traceId)).toEqual(
          [`t${i}`, `t${i - 1}`, `t${i - 2}`].filter((id) => Number(id.slice(1)) >= 1)
        );
      }
      // A store of a later life counts the table once, then keeps counting.
      const woken = new RoomTraceStore(sql, () => "room", 3);
      woken.start(span("t9", "root", 1009, "request"));
      woken.start(span("t10", "root", 1010, "request"));
      expect(woken.list(50).map((t) => t.traceId)).toEqual(["t10", "t9", "t8"]);
      // Dropped traces take their spans with them.
      const spanTraces = sql.exec<{ trace_id: string }>("SELECT DISTINCT trace_id FROM rooms_spans ORDER BY trace_id");
      expect(spanTraces.toArray().map((r) => r.trace_id)).toEqual(["t10", "t8", "t9"]);
    });
  });
});

describe("the trace store's spans", () => {
  it("refuses spans past a trace's limit, and a later span reopens a finished trace", async () => {
    await inSql((sql) => {
      const store = new RoomTraceStore(sql, () => "room");
      for (let i = 0; i < MAX_SPANS_PER_TRACE; i++) expect(store.start(span("full", `s${i}`, 1000 + i))).toBe(true);
      expect(store.start(span("full", "one-too-many", 5000))).toBe(false);
      expect(store.record(span("full", "queued", 5000, "queue"), { endedAt: 5001, status: "ok" })).toBe(false);
      expect(store.get("full")?.spans).toHaveLength(MAX_SPANS_PER_TRACE);
      expect(store.list(1)[0]).toMatchObject({ traceId: "full", spanCount: MAX_SPANS_PER_TRACE });

      store.start(span("again", "root", 2000, "request"));
      store.closeTrace("again", "ok", 3000, null, "m1");
      expect(store.list(50).find((t) => t.traceId === "again")).toMatchObject({
        status: "ok",
        endedAt: 3000,
        messageId: "m1",
        spanCount: 1
      });
      store.start(span("again", "turn-2", 4000));
      expect(store.list(50).find((t) => t.traceId === "again")).toMatchObject({
        status: "running",
        endedAt: null,
        messageId: "m1",
        spanCount: 2
      });
      // Closing without a message keeps the one recorded.
      store.closeTrace("again", "stopped", 4500);
      expect(store.list(50).find((t) => t.traceId === "again")).toMatchObject({ status: "stopped", messageId: "m1" });
    });
  });

  it("records a span that is already over as a start and an end would", async () => {
    await inSql((sql) => {
      const store = new RoomTraceStore(sql, () => "room");
      store.start(span("tr", "root", 1000, "request"));
      store.record(span("tr", "queue", 1000, "queue"), { endedAt: 1040, status: "ok" });
      store.start(span("tr", "started", 1000, "queue"));
      store.end("tr", "started", { endedAt: 1040, status: "ok" });
      const [, recorded, started] = store.get("tr")?.spans ?? [];
      expect({ ...recorded, spanId: "x" }).toEqual({ ...started, spanId: "x" });
      expect(recorded).toMatchObject({ status: "ok", startedAt: 1000, endedAt: 1040, errorCode: null });
      expect(store.list(1)[0].spanCount).toBe(3);
    });
  });
});
