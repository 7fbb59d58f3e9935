import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import {
  facetUnreachable,
  isRetryableCode,
  modelFailure,
  pause,
  readStructuredError,
  shouldRetry
} from "@/server/domain/facets/facet-errors";
import type { StructuredError } from "@/shared/budgets";

const apiError = (statusCode: number) =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: "http://provider.test/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    responseBody: "secret body sk-live-123"
  });

describe("a facet's model failure as a value", () => {
  it("is retryable for overload, server errors and stalls, not for refusals", () => {
    expect(modelFailure(apiError(503))).toMatchObject({ code: "upstream:http_503", retryable: true });
    expect(modelFailure(apiError(429))).toMatchObject({ code: "upstream:http_429", retryable: true });
    expect(modelFailure(apiError(401))).toMatchObject({ code: "upstream:http_401", retryable: false });
    expect(modelFailure(apiError(400))).toMatchObject({ code: "upstream:http_400", retryable: false });
    expect(modelFailure(Object.assign(new Error("idle"), { code: "rooms_idle_timeout" }))).toMatchObject({
      code: "upstream:timeout",
      retryable: true
    });
    for (const code of ["upstream:connection_lost", "upstream:facet", "upstream:http_500"])
      expect(isRetryableCode(code)).toBe(true);
    for (const code of ["upstream:model", "upstream:unreadable", "aborted", "budget_exceeded:room"])
      expect(isRetryableCode(code)).toBe(false);
  });

  it("says what happened in words, never the provider's body or the key", () => {
    const failure = modelFailure(apiError(401), { apiKey: "sk-live-123" });
    expect(failure.message).toMatch(/refused our credentials/);
    expect(failure.message).not.toContain("sk-live-123");
    expect(failure.message).not.toContain("secret body");
  });

  it("of an unreachable facet is retryable", () => {
    expect(facetUnreachable("@Ada")).toEqual({
      code: "upstream:facet",
      message: "@Ada could not be reached. Retry in a moment.",
      retryable: true
    });
  });
});

describe("a structured error read across a boundary", () => {
  it("keeps well-formed errors and refuses anything else", () => {
    expect(readStructuredError({ code: "upstream:http_503", message: "Busy.", retryable: true })).toEqual({
      code: "upstream:http_503",
      message: "Busy.",
      retryable: true
    });
    expect(readStructuredError({ code: "upstream:model", message: "m", retryable: "yes" })?.retryable).toBe(false);
    expect(readStructuredError({ code: "<script>", message: "m" })).toBeNull();
    // Only codes of the one error model (src/shared/errors.ts) cross the boundary.
    expect(readStructuredError({ code: "upstream:x", message: "m" })).toBeNull();
    expect(readStructuredError({ code: "upstream:x", message: "" })).toBeNull();
    expect(readStructuredError("upstream:x")).toBeNull();
    expect(readStructuredError({ code: "upstream:model", message: "m".repeat(5_000) })?.message).toHaveLength(1_000);
  });
});

describe("the room's one retry", () => {
  const retryable: StructuredError = { code: "upstream:http_503", message: "Busy.", retryable: true };
  it("happens once, for a retryable failure, when nothing was produced", () => {
    expect(shouldRetry(retryable, 1, false)).toBe(true);
    expect(shouldRetry(retryable, 2, false)).toBe(false);
    expect(shouldRetry(retryable, 1, true)).toBe(false);
    expect(shouldRetry({ ...retryable, retryable: false }, 1, false)).toBe(false);
    expect(shouldRetry(null, 1, false)).toBe(false);
  });

  it("waits its pause, or less when stopped", async () => {
    const started = Date.now();
    await pause(30, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    const stop = new AbortController();
    const stopped = pause(60_000, stop.signal);
    stop.abort();
    await stopped;
  });
});
