import { describe, expect, it } from "vitest";
import { RecentIds, readClientSend, StopRequests } from "@/server/domain/messages/client-sends";
import { outboxRequestFrame } from "@/shared/outbox";

const bodyOf = (frame: string) => JSON.parse(frame).init.body as string;

describe("readClientSend", () => {
  it("reads the client message id of an outbox frame", () => {
    const body = bodyOf(outboxRequestFrame("r", { id: "client-0001", text: "hi", createdAt: 1 }));
    expect(readClientSend(body)).toEqual({ kind: "outbox", clientMessageId: "client-0001" });
  });

  it("treats a body without one as a plain send", () => {
    expect(readClientSend(JSON.stringify({ messages: [{ id: "x" }] }))).toEqual({ kind: "plain" });
    expect(readClientSend(undefined)).toEqual({ kind: "plain" });
  });

  it("refuses malformed ids, regenerations and mismatched message ids", () => {
    const make = (extra: Record<string, unknown>) =>
      JSON.stringify({ messages: [{ id: "client-0001" }], clientMessageId: "client-0001", ...extra });
    expect(readClientSend(make({ clientMessageId: "short" })).kind).toBe("invalid");
    expect(readClientSend(make({ clientMessageId: "has space in it" })).kind).toBe("invalid");
    expect(readClientSend(make({ trigger: "regenerate-message" })).kind).toBe("invalid");
    expect(readClientSend(make({ messages: [{ id: "client-0002" }] })).kind).toBe("invalid");
  });
});

describe("RecentIds", () => {
  it("forgets the oldest beyond its capacity and after its time to live", () => {
    const ids = new RecentIds(2, 1_000);
    ids.add("a", 0);
    ids.add("b", 0);
    ids.add("c", 0);
    expect(ids.has("a", 10)).toBe(false);
    expect(ids.has("c", 10)).toBe(true);
    expect(ids.has("c", 1_000)).toBe(false);
  });
});

describe("StopRequests", () => {
  it("keeps the first stopper of a turn and hands it out once", () => {
    const stops = new StopRequests();
    stops.record("turn", "Ada");
    stops.record("turn", "Grace");
    expect(stops.take("turn")).toBe("Ada");
    expect(stops.take("turn")).toBeUndefined();
  });
});
