import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toChatMessage } from "@/server/domain/messages/chat-messages";
import {
  fitsBounds,
  isKeptMessage,
  MIN_TIMESTAMP,
  normalizeMessage,
  OVERSIZED_PART_NOTE,
  PERSIST_LIMITS
} from "@/server/domain/messages/persisted-message";
import { MAX_MESSAGE_LENGTH } from "@/shared/constants";

const NOW = Date.UTC(2026, 11, 1);
const METADATA_KEYS = new Set([
  "author",
  "answers",
  "versionOf",
  "version",
  "createdAt",
  "model",
  "offline",
  "usage",
  "stopped",
  "error",
  "noReply",
  "persona",
  "panel",
  "traceId",
  "errorCode"
]);
const PART_TYPE = /^(text|reasoning|step-start|source-url|source-document|file|dynamic-tool|tool-[A-Za-z0-9_-]{1,64})$/;

/** A structure nested `levels` deep, built without recursion. */
function deep(levels: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = { nested: value };
  return value;
}

function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    max = Math.max(max, depth);
    if (current && typeof current === "object") {
      for (const child of Object.values(current)) stack.push([child, depth + 1]);
    }
  }
  return max;
}

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom("", "\u0000", "\ud800", "<script>alert(1)</script>", "__proto__"),
  fc.integer({ min: 0, max: 3 }).map((k) => "x".repeat([10, MAX_MESSAGE_LENGTH + 1, 250_000, 1_000_000][k]))
);
const hostileNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(1e20, -1, 0, Number.MAX_SAFE_INTEGER, Number.NaN, Number.POSITIVE_INFINITY, NOW, NOW + 3_600_000)
);
const hostileValue = fc.oneof(
  { depthSize: "small" },
  fc.anything(),
  hostileString,
  hostileNumber,
  fc.constantFrom(deep(20_000), deep(40), deep(33))
);
const part = fc.oneof(
  fc.record({ type: fc.constantFrom("text", "reasoning"), text: hostileString }),
  fc.record({
    type: fc.constantFrom("tool-get_current_time", "tool-x", "dynamic-tool", "tool-", "tool-../../x"),
    toolCallId: fc.string(),
    state: fc.constantFrom("output-available", "input-available"),
    input: hostileValue,
    output: hostileValue
  }),
  fc.record({ type: fc.constantFrom("step-start", "source-url", "file"), url: hostileString }),
  fc.record({ type: fc.oneof(fc.string(), fc.constantFrom("data-x", "system", "image")), text: hostileValue }),
  fc.anything()
);
const metadata = fc.oneof(
  fc.anything(),
  fc.record(
    {
      author: fc.oneof(hostileString, fc.record({ id: hostileString, name: hostileString }), hostileValue),
      createdAt: hostileNumber,
      model: hostileValue,
      usage: fc.oneof(fc.record({ inputTokens: hostileNumber, outputTokens: hostileNumber }), hostileValue),
      error: hostileValue,
      answers: hostileValue,
      isAdmin: fc.constant(true),
      nested: fc.constant(deep(20_000))
    },
    { requiredKeys: [] }
  )
);
const message = fc.record(
  {
    id: fc.oneof(fc.uuid(), hostileString, fc.anything()),
    role: fc.oneof(fc.constantFrom("user", "assistant", "system", "tool", "data", "", "USER"), fc.anything()),
    parts: fc.oneof(fc.array(part, { maxLength: 8 }), fc.anything()),
    metadata
  },
  { requiredKeys: ["id", "role", "parts"] }
);

describe("what the server will persist (property-based)", () => {
  it("is always a message of a known role, known part types, server metadata and bounded size and depth", () => {
    fc.assert(
      fc.property(message, (raw) => {
        const stored = normalizeMessage(raw, NOW);
        if (stored === null) return;
        expect(["user", "assistant"]).toContain(stored.role);
        expect(stored.id.length).toBeGreaterThan(0);
        expect(stored.id.length).toBeLessThanOrEqual(PERSIST_LIMITS.maxIdLength);
        expect(stored.parts.length).toBeLessThanOrEqual(PERSIST_LIMITS.maxParts);
        for (const p of stored.parts) {
          expect(p.type).toMatch(PART_TYPE);
          if (stored.role === "user") {
            expect(p.type).toBe("text");
            expect((p as { text: string }).text.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
          }
          expect(depthOf(p)).toBeLessThanOrEqual(PERSIST_LIMITS.maxPartDepth + 1);
        }
        const meta = stored.metadata as Record<string, unknown>;
        for (const key of Object.keys(meta)) expect(METADATA_KEYS).toContain(key);
        expect(meta.createdAt).toBeGreaterThanOrEqual(MIN_TIMESTAMP);
        expect(meta.createdAt).toBeLessThanOrEqual(NOW + PERSIST_LIMITS.maxClockSkewMs);
        expect(depthOf(meta)).toBeLessThanOrEqual(2);
        if (meta.author !== undefined && typeof meta.author !== "string") {
          expect(Object.keys(meta.author as object).sort()).toEqual(["id", "name"]);
        }
        // It serializes (no 20,000-level recursion left) and its size is bounded.
        const json = JSON.stringify(stored);
        expect(json.length).toBeLessThan(PERSIST_LIMITS.maxParts * (PERSIST_LIMITS.maxPartTextLength * 6 + 1024));
      }),
      { numRuns: 400, seed: 20261201 }
    );
  });

  it("is stable: normalizing a stored message again changes nothing (so nothing is rewritten on every save)", () => {
    fc.assert(
      fc.property(message, (raw) => {
        const once = normalizeMessage(raw, NOW);
        if (once === null) return;
        expect(JSON.stringify(normalizeMessage(once, NOW + 60_000))).toBe(JSON.stringify(once));
      }),
      { numRuns: 300, seed: 7 }
    );
  });

  it("is kept by the write path's cheap filter exactly when normalizing keeps it", () => {
    let kept = 0;
    fc.assert(
      fc.property(message, (raw) => {
        const keeps = normalizeMessage(raw, NOW) !== null;
        if (keeps) kept++;
        expect(isKeptMessage(raw)).toBe(keeps);
      }),
      { numRuns: 400, seed: 5 }
    );
    expect(kept).toBeGreaterThan(0);
    expect(isKeptMessage({ id: "x".repeat(PERSIST_LIMITS.maxIdLength + 1), role: "user", parts: [] })).toBe(false);
  });

  it("never stores a role other than user or assistant", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.anything()).filter((role) => role !== "user" && role !== "assistant"),
        (role) => {
          expect(normalizeMessage({ id: "m1", role, parts: [{ type: "text", text: "hi" }] }, NOW)).toBeNull();
        }
      ),
      { seed: 3 }
    );
  });

  it("keeps a well-formed message exactly", () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.string({ minLength: 1, maxLength: 500 }),
        fc.integer({ min: MIN_TIMESTAMP, max: NOW }),
        (id, text, createdAt) => {
          const raw = { id, role: "user", parts: [{ type: "text", text }], metadata: { createdAt, author: "Ann" } };
          expect(normalizeMessage(raw, NOW)).toEqual(raw);
        }
      ),
      { seed: 11 }
    );
  });
});

describe("the attacks from issue 9, one by one", () => {
  it("metadata nested 20,000 levels deep is dropped without being walked, and the message serializes", () => {
    const stored = normalizeMessage(
      { id: "m", role: "user", parts: [{ type: "text", text: "hi" }], metadata: deep(20_000) },
      NOW
    );
    expect(stored?.metadata).toEqual({ createdAt: NOW });
    expect(() => JSON.stringify(stored)).not.toThrow();
  });

  it("a createdAt of 1e20 becomes the server's time", () => {
    const stored = normalizeMessage(
      { id: "m", role: "user", parts: [{ type: "text", text: "hi" }], metadata: { createdAt: 1e20 } },
      NOW
    );
    expect(stored?.metadata).toEqual({ createdAt: NOW });
  });

  it("a tool output nested 20,000 deep or 1 MB large is replaced by a note", () => {
    for (const output of [deep(20_000), { big: "x".repeat(1_000_000) }]) {
      const stored = normalizeMessage(
        { id: "m", role: "assistant", parts: [{ type: "tool-search_room_history", toolCallId: "c", output }] },
        NOW
      );
      expect(stored?.parts).toEqual([{ type: "text", text: OVERSIZED_PART_NOTE }]);
    }
  });

  it("a user message carries text only, at most MAX_MESSAGE_LENGTH characters", () => {
    const stored = normalizeMessage(
      {
        id: "m",
        role: "user",
        parts: [
          { type: "text", text: "y".repeat(200_000) },
          { type: "tool-x", output: 1 },
          { type: "reasoning", text: "forged" }
        ]
      },
      NOW
    );
    expect(stored?.parts).toEqual([{ type: "text", text: "y".repeat(MAX_MESSAGE_LENGTH) }]);
  });

  it("a stored row that is not a message is returned readable, with its id and why", () => {
    const wire = toChatMessage({ id: "legacy", role: "system", parts: [{ type: "text", text: "FORGED" }] }, NOW);
    expect(wire).toEqual({
      id: "legacy",
      role: "assistant",
      parts: [],
      metadata: { createdAt: NOW, error: "This stored message cannot be read." }
    });
  });

  it("fitsBounds stops early on deep structures", () => {
    expect(fitsBounds(deep(20_000), 32, 1e9)).toBe(false);
    expect(fitsBounds(deep(10), 32, 1e9)).toBe(true);
    expect(fitsBounds({ s: "x".repeat(100) }, 32, 50)).toBe(false);
  });
});
