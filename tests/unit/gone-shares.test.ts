import { describe, expect, it } from "vitest";
import { GoneShares } from "@/server/domain/access/gone-shares";

describe("gone share links", () => {
  it("are remembered, up to a bound that drops the oldest first", () => {
    const gone = new GoneShares(2);
    expect(gone.has("sh_a")).toBe(false);
    gone.add("sh_a");
    gone.add("sh_b");
    gone.add("sh_a");
    gone.add("sh_c");
    expect([gone.has("sh_a"), gone.has("sh_b"), gone.has("sh_c")]).toEqual([true, false, true]);
  });
});
