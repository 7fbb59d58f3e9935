import { afterEach, describe, expect, it, vi } from "vitest";
import { RestTurnBridge } from "@/server/agents/room/rest-bridge";
import { AppError, toErrorBody } from "@/server/app-error";
import { ErrorBody, parseWireError } from "@/shared/errors";

/** The events of a server-sent-events body, data parsed. */
async function sseEvents(stream: ReadableStream<Uint8Array>): Promise<Array<{ event: string; data: unknown }>> {
  const text = await new Response(stream).text();
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "";
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "null";
      return { event, data: JSON.parse(data) };
    });
}

/** A REST send over SSE in a room whose turn fails with `failure`. */
async function failingStream(failure: unknown) {
  const room = { messages: [], saveMessages: () => Promise.reject(failure) };
  const arrivals = { arrive: () => undefined, forget: () => undefined };
  // The bridge needs only these two members of AIChatAgent.
  const bridge = new RestTurnBridge(room as never, arrivals, { replyTarget: async () => null });
  return sseEvents(await bridge.stream({ text: "hello" }, { id: "u1", name: "Ann" }));
}

afterEach(() => vi.restoreAllMocks());

describe("one error model on every wire", () => {
  it("ends a REST send streamed as server-sent events with the same error body REST answers with", async () => {
    const failure = new AppError("budget_exceeded:room", 429, "This room has used its daily token budget.");
    const events = await failingStream(failure);
    expect(events.map((e) => e.event)).toEqual(["user-message", "error"]);
    const data = events[1].data;
    expect(ErrorBody.parse(data)).toEqual(failure.toBody());
    expect(parseWireError(data)).toEqual({
      code: "budget_exceeded:room",
      message: "This room has used its daily token budget."
    });
  });

  it("streams an unexpected failure as a generic error that leaks none of its text, and logs it", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const events = await failingStream(new Error("the prompt said: my password is hunter2"));
    const data = events.at(-1)?.data;
    expect(events.at(-1)?.event).toBe("error");
    expect(parseWireError(data)?.code).toBe("internal:unexpected");
    expect(JSON.stringify(data)).not.toContain("hunter2");
    expect(logged).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(logged.mock.calls)).not.toContain("hunter2");
  });

  it("maps an AppError to its own body and anything else to one generic body", () => {
    expect(toErrorBody(new AppError("not_found:room", 404, 'Room "x" does not exist.'))).toEqual({
      error: { code: "not_found:room", message: 'Room "x" does not exist.' }
    });
    expect(toErrorBody(new TypeError("boom"))).toEqual({
      error: { code: "internal:unexpected", message: "Something went wrong on our side." }
    });
  });

  it("reads the error of a REST body, an SSE error event and a room socket frame alike", () => {
    const expected = { code: "rate_limited:requests", message: "Too many messages; try again in 2 s." };
    expect(parseWireError({ error: expected })).toEqual(expected);
    expect(parseWireError({ type: "rooms_error", ...expected })).toEqual(expected);
  });

  it.each([
    ["a body without an error", { ok: true }],
    ["an unknown code", { error: { code: "teapot:brewing", message: "no" } }],
    ["an empty message", { error: { code: "not_found:room", message: "" } }],
    ["another frame type", { type: "rooms_presence", code: "not_found:room", message: "x" }],
    ["text", "Internal Server Error"],
    ["nothing", undefined]
  ])("reads no error from %s", (_what, value) => {
    expect(parseWireError(value)).toBeNull();
  });
});
