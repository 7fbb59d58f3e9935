import { describe, expect, it } from "vitest";
import { describeModelError } from "@/server/domain/turns/model-errors";

const apiError = (statusCode: number, message = "boom") => ({ name: "AI_APICallError", statusCode, message });

describe("describeModelError", () => {
  it.each([
    [apiError(401), /refused our credentials \(HTTP 401\)/],
    [apiError(403), /refused our credentials \(HTTP 403\)/],
    [apiError(404), /does not know this model/],
    [apiError(429), /rate limiting us \(HTTP 429\)/],
    [apiError(500), /failed \(HTTP 500\)/],
    [apiError(504), /stopped responding \(HTTP 504\)/],
    [apiError(400), /rejected the request \(HTTP 400\)/],
    [
      { name: "AI_StreamProviderError", statusCode: 500, code: "rooms_connection_lost", message: "x" },
      /lost mid-answer/
    ],
    [
      { name: "AI_StreamProviderError", statusCode: 500, code: "rooms_idle_timeout", message: "x" },
      /stopped responding/
    ],
    [{ name: "AI_JSONParseError", message: "Unexpected token" }, /could not read/],
    [new TypeError("fetch failed"), /lost mid-answer/],
    ["something odd", /model request failed/]
  ])("explains %o in words a person can act on", (error, expected) => {
    expect(describeModelError(error)).toMatch(expected);
  });

  it("counts the attempts of a retried failure", () => {
    const retry = {
      name: "AI_RetryError",
      errors: [apiError(503), apiError(503), apiError(503)],
      lastError: apiError(503)
    };
    expect(describeModelError(retry)).toBe("The model provider failed (HTTP 503) (tried 3 times). Retry in a moment.");
  });

  it("never repeats the API key, even if a provider echoes it", () => {
    const key = "sk-secret-123";
    const text = describeModelError({ name: "Error", message: `bad key ${key}` }, { apiKey: key });
    expect(text).not.toContain(key);
  });
});
