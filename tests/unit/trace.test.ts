import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { logLine } from "@/server/domain/tracing/structured-log";
import {
  checkTraceTree,
  continueOrStart,
  formatTraceparent,
  MAX_TRACES_PER_ROOM,
  newSpanId,
  newTraceId,
  parseTraceparent,
  tokensPerSecond,
  tracesOverCap
} from "@/server/domain/tracing/trace-spans";
import type { TraceSpan } from "@/shared/traces";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

describe("parseTraceparent", () => {
  it("accepts the W3C example and round-trips it", () => {
    const value = `00-${TRACE}-${SPAN}-01`;
    const parsed = parseTraceparent(value);
    expect(parsed).toEqual({ traceId: TRACE, spanId: SPAN, flags: "01" });
    expect(formatTraceparent(parsed!)).toBe(value);
  });

  it("refuses what the spec refuses", () => {
    for (const bad of [
      undefined,
      42,
      "",
      `ff-${TRACE}-${SPAN}-01`,
      `00-${"0".repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}`
    ]) {
      expect(parseTraceparent(bad), String(bad)).toBeNull();
    }
  });

  it("accepts later versions with extra fields, ignoring them", () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-00-what-ever`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: "00" });
  });

  it("round-trips every valid context", () => {
    const hexOf = (n: number) =>
      fc
        .string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: n, maxLength: n })
        .filter((s) => /[1-9a-f]/.test(s));
    fc.assert(
      fc.property(hexOf(32), hexOf(16), hexOf(2), (traceId, spanId, flags) => {
        const ctx = { traceId, spanId, flags };
        expect(parseTraceparent(formatTraceparent(ctx))).toEqual(ctx);
      })
    );
  });
});

describe("new ids", () => {
  it("are lowercase hex of the right length and never all zero", () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    let calls = 0;
    const zeroThenOne = (b: Uint8Array) => {
      b.fill(calls++ === 0 ? 0 : 1);
      return b;
    };
    expect(newSpanId(zeroThenOne)).toBe("0101010101010101");
  });

  it("continueOrStart keeps a client's span as the parent, never its trace id, and starts one otherwise", () => {
    const continued = continueOrStart(`00-${TRACE}-${SPAN}-00`);
    expect(continued).toMatchObject({ context: { spanId: SPAN, flags: "00" }, fromClient: true });
    expect(continued.context.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(continued.context.traceId).not.toBe(TRACE);
    const started = continueOrStart("garbage");
    expect(started.fromClient).toBe(false);
    expect(started.context.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});

function span(id: string, parent: string | null, over: Partial<TraceSpan> = {}): TraceSpan {
  return {
    traceId: TRACE,
    spanId: id,
    parentSpanId: parent,
    name: id,
    kind: "turn",
    startedAt: 10,
    endedAt: 20,
    status: "ok",
    model: null,
    inputTokens: null,
    outputTokens: null,
    firstTokenAt: null,
    errorCode: null,
    agent: "room",
    ...over
  };
}

describe("checkTraceTree", () => {
  it("accepts one tree whose root hangs off the client's span", () => {
    const check = checkTraceTree([span("a", SPAN), span("b", "a"), span("c", "b")], { requireClosed: true });
    expect(check).toMatchObject({ ok: true, problems: [] });
    expect(check.root?.spanId).toBe("a");
  });

  it("finds two roots, open spans, other traces, early children and cycles", () => {
    expect(checkTraceTree([span("a", null), span("b", null)]).problems).toContain("expected one root, found 2");
    expect(
      checkTraceTree([span("a", null), span("b", "a", { endedAt: null, status: "running" })], { requireClosed: true })
        .ok
    ).toBe(false);
    expect(checkTraceTree([span("a", null), span("b", "a", { traceId: "f".repeat(32) })]).ok).toBe(false);
    expect(checkTraceTree([span("a", null), span("b", "a", { startedAt: 5 })]).problems).toContain(
      "b starts before its parent"
    );
    expect(checkTraceTree([span("r", null), span("a", "b"), span("b", "a")]).ok).toBe(false);
  });
});

describe("store bounds and rates", () => {
  it("drops only what is past the cap", () => {
    expect(tracesOverCap(MAX_TRACES_PER_ROOM)).toBe(0);
    expect(tracesOverCap(MAX_TRACES_PER_ROOM + 3)).toBe(3);
    expect(tracesOverCap(5, 2)).toBe(3);
  });

  it("tokens per second count from the first token", () => {
    expect(tokensPerSecond({ endedAt: 3000, firstTokenAt: 1000, outputTokens: 100 })).toBe(50);
    expect(tokensPerSecond({ endedAt: null, firstTokenAt: 1000, outputTokens: 100 })).toBeNull();
    expect(tokensPerSecond({ endedAt: 1000, firstTokenAt: 1000, outputTokens: 100 })).toBeNull();
  });
});

describe("logLine", () => {
  it("is one JSON object with level, time and the given fields only", () => {
    const line = logLine("info", { event: "span.end", traceId: TRACE, durationMs: 5, model: undefined }, 0);
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({
      level: "info",
      ts: "1970-01-01T00:00:00.000Z",
      event: "span.end",
      traceId: TRACE,
      durationMs: 5
    });
  });
});
