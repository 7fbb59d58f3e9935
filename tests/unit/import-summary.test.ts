import { describe, expect, it } from "vitest";
import { importSummary } from "@/client/lib/import-summary";
import type { TruncatedMessage } from "@/shared/transfer";

const cut = (position: number, role: TruncatedMessage["role"] = "user"): TruncatedMessage => ({
  messageId: `m${position}`,
  position,
  role,
  originalLength: 3_000_000,
  keptLength: 16_000
});

describe("an import's summary", () => {
  it("counts the rooms and says nothing more when nothing was cut", () => {
    expect(importSummary({ rooms: [{ id: "r1", name: "Trip", messageCount: 4, truncated: [] }] })).toEqual({
      headline: "Imported 1 room.",
      shortened: []
    });
  });

  it("names each shortened message with its room, place, kind and lengths, and counts what it does not list", () => {
    const summary = importSummary({
      rooms: [
        { id: "r1", name: "Long", messageCount: 9, truncated: [cut(3), cut(4, "assistant")] },
        { id: "r2", name: "Longer", messageCount: 9, truncated: [1, 2, 5, 6, 7].map((p) => cut(p)) }
      ]
    });
    expect(summary.headline).toBe("Imported 2 rooms.");
    expect(summary.shortened[0]).toBe(
      `“Long”, message 3 (a person's message): shortened from ${(3_000_000).toLocaleString()} characters to ${(16_000).toLocaleString()}.`
    );
    expect(summary.shortened[1]).toContain("message 4 (an answer)");
    expect(summary.shortened).toHaveLength(6);
    expect(summary.shortened[5]).toBe("…and 2 more messages.");
  });
});
