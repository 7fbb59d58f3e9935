/**
 * What tracing costs a room: the time and storage of its spans.
 *
 *   JITI_TSCONFIG_PATHS=true npx jiti bench/span-cost.ts [--turns 2000] [--personas 3]
 *
 * (The room's modules import through the `@/` alias of tsconfig.json,
 * which jiti follows only when asked.)
 *
 * Runs the room's real tracing code (room/turn-trace.ts, room/trace-store.ts:
 * RoomTracer, TurnTrace, RoomTraceStore and the facet span reports) over
 * SQLite, for panel turns: request, queue, turn, and per persona an agent


 * Object's storage runs, without its I/O gates), in a temp file, so the
 * figures are the store's own work: statements and bytes, no network.
 * The JSON log line each trace writes is counted, not printed.
 *
 * Not a test: it measures and prints; nothing asserts a time.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { RoomTraceStore } from "../src/server/agents/room/trace-store";
import { RoomTracer } from "../src/server/agents/room/turn-trace";
import { MAX_TRACES_PER_ROOM, newSpanId } from "../src/server/domain/tracing/trace-spans";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The slice of the Workers SqlStorage API the trace store uses, over node:sqlite. */
function sqlStorage(db: DatabaseSync): SqlStorage {
  const exec = (query: string, ...bindings: unknown[]) => {
    const rows = db.prepare(query).all(...(bindings as never[]));
    return { toArray: () => rows } as unknown as SqlStorageCursor<Record<string, SqlStorageValue>>;
  };
  return { exec } as unknown as SqlStorage;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const turns = arg("turns", 2_000);
const personas = arg("personas", 3);
const dir = mkdtempSync(path.join(tmpdir(), "rooms-span-cost-"));
const file = path.join(dir, "room.sqlite");
const db = new DatabaseSync(file);
db.exec("PRAGMA journal_mode = WAL");
// A Durable Object commits a turn's writes together behind its output gate,
// not one fsync per statement: no per-statement sync here either.
db.exec("PRAGMA synchronous = OFF");
const store = new RoomTraceStore(sqlStorage(db), () => "bench-room");
const tracer = new RoomTracer(store);

let logLines = 0;
const realLog = console.log;
console.log = () => {
  logLines++;
};

const perTurn: number[] = [];
let spans = 0;
for (let i = 0; i < turns; i++) {
  const started = performance.now();
  const messageId = `m${i}`;
  tracer.arrive(messageId, null, "rest");
  const turn = tracer.begin({ requestId: `r${i}`, answering: messageId, continuation: false, continuingTraceId: null });
  for (let p = 0; p < personas; p++) {
    const run = tracer.startAgent(`persona-${p}`, `P${p}`, { kind: "persona" });
    const parent = (run.traceparent ?? "").split("-")[2];
    const spanId = newSpanId();
    const at = Date.now();
    const report = { traceId: turn.traceId, spanId, parentSpanId: parent, name: "chat m", kind: "model" as const };
    tracer.report({ ...report, phase: "start", model: "m", at });
    tracer.report({ ...report, phase: "end", model: null, at, status: "ok", inputTokens: 100, outputTokens: 40 });
    run.end("ok");
  }
  tracer.end(`r${i}`, "completed", { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } });
  perTurn.push(performance.now() - started);
  spans += 3 + personas * 2;
}
console.log = realLog;

const spansPerTurn = 3 + personas * 2;
const sorted = [...perTurn].sort((a, b) => a - b);
const steady = sorted.slice(0, Math.floor(sorted.length * 0.99));
const mean = steady.reduce((a, b) => a + b, 0) / steady.length;
const kept = (db.prepare("SELECT COUNT(*) AS n FROM rooms_traces").get() as { n: number }).n;
const keptSpans = (db.prepare("SELECT COUNT(*) AS n FROM rooms_spans").get() as { n: number }).n;
db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
const { page_count: pages } = db.prepare("PRAGMA page_count").get() as { page_count: number };
const { page_size: pageSize } = db.prepare("PRAGMA page_size").get() as { page_size: number };
const bytes = pages * pageSize;
db.close();
const fileBytes = statSync(file).size;
rmSync(dir, { recursive: true, force: true });

const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
realLog(
  JSON.stringify(
    {
      turns,
      personas,
      spansPerTurn,
      spansWritten: spans,
      perTurn: { median: us(percentile(sorted, 0.5)), p95: us(percentile(sorted, 0.95)), max: us(sorted.at(-1) ?? 0) },
      perSpan: { median: us(percentile(sorted, 0.5) / spansPerTurn), meanOfFastest99: us(mean / spansPerTurn) },
      tracesKept: kept,
      cap: MAX_TRACES_PER_ROOM,
      spansKept: keptSpans,
      storeBytesAtCap: bytes,
      bytesPerSpanAtCap: Math.round(bytes / keptSpans),
      sqliteFileBytes: fileBytes,
      logLinesPerTurn: logLines / turns,
      node: process.version,
      loadAverage1m: loadavg()[0].toFixed(1)
    },
    null,
    2
  )
);
