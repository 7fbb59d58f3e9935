import type { ChatResponseResult } from "@cloudflare/ai-chat";
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { WorkspaceAdmission } from "@/server/agents/overseer/admission";
import { lastAnswerTraceId, markEndedEarly } from "@/server/agents/room/turn-end";
import { AppError } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import { NO_IDENTITY_LIMITS } from "@/server/domain/access/identity-limits";
import { BoundedWindow, WINDOW_CHECK_EVERY } from "@/server/domain/turns/memory-window";
import { MAX_ROOMS_PER_WORKSPACE } from "@/shared/constants";

const text = (id: string, role: "user" | "assistant", metadata: Record<string, unknown> = {}): UIMessage => ({
  id,
  role,
  parts: [{ type: "text", text: id }],
  metadata
});

const ended = (status: ChatResponseResult["status"], message: UIMessage, error?: string): ChatResponseResult => ({
  message,
  requestId: "r1",
  continuation: false,
  status,
  ...(error ? { error } : {})
});

describe("how a turn that ended early is kept in the transcript", () => {
  it("marks a stored answer that failed with its error, code and trace, keeping its text", () => {
    const answer = text("a1", "assistant", { createdAt: 5, model: "m" });
    const marked = markEndedEarly([text("q1", "user"), answer], ended("error", answer, "The provider failed."), {
      errorCode: "upstream:http_503",
      traceId: "t1"
    });
    expect(marked?.map((m) => m.id)).toEqual(["q1", "a1"]);
    expect(marked?.[1]).toMatchObject({
      parts: [{ type: "text", text: "a1" }],
      metadata: {
        createdAt: 5,
        model: "m",
        error: "The provider failed.",
        errorCode: "upstream:http_503",
        traceId: "t1"
      }
    });
  });

  it("records a provider failure that produced nothing as an empty answer to its question", () => {
    const unsaved: UIMessage = { id: "a2", role: "assistant", parts: [], metadata: { answers: "q1" } };
    const marked = markEndedEarly([text("q1", "user")], ended("error", unsaved), { errorCode: "upstream:timeout" }, 42);
    expect(marked?.[1]).toEqual({
      id: "a2",
      role: "assistant",
      parts: [],
      metadata: { createdAt: 42, answers: "q1", error: "The model request failed.", errorCode: "upstream:timeout" }
    });
  });

  it("marks a stopped answer with who stopped it and no error; a stop before any answer writes nothing", () => {
    const answer = text("a1", "assistant");
    const stoppedBy = { id: "u1", name: "Ann" };
    const marked = markEndedEarly([answer], ended("aborted", answer), { stoppedBy, errorCode: "upstream:model" });
    expect(marked?.[0].metadata).toEqual({ stopped: true, stoppedBy });
    expect(markEndedEarly([], ended("aborted", { id: "x", role: "assistant", parts: [] }), {})).toBeNull();
  });

  it("continues the trace of the newest answer, and of none when the newest answer has none", () => {
    const messages = [text("a0", "assistant", { traceId: "t0" }), text("q1", "user")];
    expect(lastAnswerTraceId(messages)).toBe("t0");
    expect(lastAnswerTraceId([...messages, text("a1", "assistant")])).toBeNull();
    expect(lastAnswerTraceId([text("q1", "user")])).toBeNull();
  });
});

describe("the in-memory transcript while a room is awake", () => {
  const sized = (n: number) => Array.from({ length: n }, (_, i) => "x".repeat(100) + i);

  it("is cut back to the window only once enough messages were added since the last check", () => {
    const window = new BoundedWindow(1_000);
    const few = sized(WINDOW_CHECK_EVERY - 1);
    expect(window.bound(few)).toBe(few);
    const many = sized(WINDOW_CHECK_EVERY + 4);
    const bounded = window.bound(many);
    expect(bounded.length).toBeLessThan(many.length);
    expect(bounded.at(-1)).toBe(many.at(-1));
    expect(JSON.stringify(bounded).length).toBeLessThanOrEqual(1_000 + 200);
    // Just checked: a few more messages do not trigger another cut.
    const grown = [...bounded, ...sized(3)];
    expect(window.bound(grown)).toBe(grown);
  });
});

describe("what the overseer admits", () => {
  const caller: Caller = { identity: { id: "u1", name: "Ann", kind: "user" }, address: "local" };

  it("holds room slots until released, so concurrent creations cannot overshoot the cap", () => {
    let rooms = MAX_ROOMS_PER_WORKSPACE - 3;
    const admission = new WorkspaceAdmission("0", () => rooms, NO_IDENTITY_LIMITS);
    const release = admission.holdRooms(2);
    expect(() => admission.holdRooms(2)).toThrow(AppError);
    const one = admission.holdRooms(1);
    expect(() => admission.holdRooms(1)).toThrow(/already has/);
    release();
    release(); // releasing twice frees the slots once
    rooms += 1;
    one();
    expect(() => admission.holdRooms(3)).toThrow(/3 more do not fit/);
    expect(() => admission.holdRooms(2)).not.toThrow();
  });

  it("turns rate limits off with RATE_LIMIT_SCALE=0 and refuses with a 429 otherwise", async () => {
    const off = new WorkspaceAdmission("0", () => 0, NO_IDENTITY_LIMITS);
    for (let i = 0; i < 200; i++) await off.admitMessages(caller);
    const on = new WorkspaceAdmission("1", () => 0, NO_IDENTITY_LIMITS);
    const refusal = await (async () => {
      for (let i = 0; i < 200; i++) {
        try {
          await on.admitNewRooms(caller);
        } catch (error) {
          return error;
        }
      }
      return null;
    })();
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: "rate_limited:requests", status: 429 });
  });
});
