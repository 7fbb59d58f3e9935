import { streamText } from "ai";
import { describe, expect, it, vi } from "vitest";
import { acceptFacetSpan, type FacetSpanReport, FacetSpans } from "@/server/domain/tracing/facet-spans";
import { createOfflineModel } from "@/server/model/offline-model";

const good = {
  phase: "end",
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  parentSpanId: "00f067aa0ba902b7",
  name: "chat fake-model",
  kind: "model",
  model: "fake-model",
  at: 1_700_000_000_000,
  status: "error",
  errorCode: "upstream:http_503",
  inputTokens: 12,
  outputTokens: 3,
  firstTokenAt: 1_700_000_000_100
};

describe("facet span reports", () => {
  it("are taken as sent when well formed", () => {
    expect(acceptFacetSpan(good)).toEqual(good);
  });

  it("are refused with bad ids, kinds, phases or times", () => {
    for (const bad of [
      { traceId: "0".repeat(31) },
      { spanId: "XYZ" },
      { parentSpanId: undefined },
      { kind: "agent" },
      { phase: "middle" },
      { name: "" },
      { at: -1 },
      { at: Number.NaN }
    ]) {
      expect(acceptFacetSpan({ ...good, ...bad })).toBeNull();
    }
    expect(acceptFacetSpan(null)).toBeNull();
    expect(acceptFacetSpan("span")).toBeNull();
  });

  it("drop what they cannot trust and bound what they keep", () => {
    const taken = acceptFacetSpan({
      ...good,
      name: "x".repeat(500),
      errorCode: "DROP TABLE",
      inputTokens: -4,
      outputTokens: 1.5,
      status: "weird"
    });
    expect(taken).toMatchObject({ errorCode: null, inputTokens: null, outputTokens: null, status: "ok" });
    expect(taken?.name).toHaveLength(120);
    // Well-shaped is not enough: only codes the shared error model declares are kept.
    expect(acceptFacetSpan({ ...good, errorCode: "upstream:teapot" })?.errorCode).toBeNull();
    expect(acceptFacetSpan({ ...good, errorCode: "tool:threw" })?.errorCode).toBe("tool:threw");
  });
});

describe("a facet's tracer", () => {
  it("exists only with a valid traceparent", () => {
    expect(FacetSpans.from(undefined, async () => {})).toBeNull();
    expect(FacetSpans.from("00-zz-zz-01", async () => {})).toBeNull();
    expect(FacetSpans.from(`00-${good.traceId}-${good.parentSpanId}-01`, async () => {})?.traceId).toBe(good.traceId);
  });

  it("flushes after every report was delivered, even when one failed", async () => {
    const delivered: string[] = [];
    let calls = 0;
    // The end report's delivery is held until the test lets it through.
    let releaseDelivery!: () => void;
    const deliveryReleased = new Promise<void>((resolve) => {
      releaseDelivery = resolve;
    });
    const spans = FacetSpans.from(`00-${good.traceId}-${good.parentSpanId}-01`, async (report: FacetSpanReport) => {
      calls++;
      if (calls === 1) throw new Error("room away");
      await deliveryReleased;
      delivered.push(`${report.phase} ${report.outputTokens ?? ""}`.trim());
    });
    const model = spans?.traceModel(
      createOfflineModel({ roomName: "r", messageCount: 0, systemPrompt: null }, { chunkDelayMs: 0 }),
      "rooms-offline"
    );
    const result = streamText({ model: model!, prompt: "hello" });
    expect(await result.text).toContain("Offline model");
    let flushed = false;
    const flushing = spans?.flush().then(() => {
      flushed = true;
    });
    // Flush waits for the delivery in flight.
    await vi.waitFor(() => expect(calls).toBe(2));
    expect(flushed).toBe(false);
    releaseDelivery();
    await flushing;
    // The start failed to send; the end still went, after it, and carried the usage.
    expect(calls).toBe(2);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatch(/^end [1-9]\d*$/);
  });
});
