import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DisplayName } from "@/shared/identity";
import { looksAlike, memberNameClash, nameSkeleton } from "@/shared/names";

/** Latin letters and the Cyrillic or Greek ones drawn like them. */
const LATIN_TO_LOOKALIKE: Record<string, string> = {
  a: "\u0430", // Cyrillic а
  A: "\u0410", // Cyrillic А
  e: "\u0435",
  o: "\u03bf", // Greek ο
  O: "\u039f", // Greek Ο
  p: "\u0440",
  c: "\u0441",
  x: "\u0445",
  y: "\u0443",
  s: "\u0455",
  d: "\u0501",
  v: "\u03bd",
  i: "\u0456",
  j: "\u0458"
};

describe("name skeletons", () => {
  it("gives Ada, ada, ADA and a Cyrillic Аda one skeleton", () => {
    for (const name of ["ada", "ADA", "\u0410da", "\u0410d\u0430", "A\u200bda", "\uff21da"]) {
      expect(nameSkeleton(name), name).toBe(nameSkeleton("Ada"));
    }
    expect(looksAlike("B0b", "Bob")).toBe(true);
    expect(looksAlike("A1ice", "Alice")).toBe(true);
    expect(looksAlike("Ada", "Ava")).toBe(false);
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 20 }), (name) => {
        const once = nameSkeleton(name);
        expect(nameSkeleton(once)).toBe(once);
      }),
      { numRuns: 500 }
    );
  });

  it("does not change when Latin letters are swapped for look-alikes", () => {
    const latin = fc.string({ unit: fc.constantFrom(..."aAeoOpcxysdvijbmnt"), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(latin, fc.infiniteStream(fc.boolean()), (name, swaps) => {
        const disguised = [...name].map((ch) => (swaps.next().value ? (LATIN_TO_LOOKALIKE[ch] ?? ch) : ch)).join("");
        expect(nameSkeleton(disguised)).toBe(nameSkeleton(name));
      })
    );
  });
});

describe("names members may not take", () => {
  it("refuses the assistant's names and look-alikes, and a leading @", () => {
    for (const name of [
      "Assistant",
      "assistant",
      "\u0410ssistant",
      "AI",
      "ai",
      "\u0391\u0399",
      "System",
      "SYST\u0415M"
    ]) {
      expect(memberNameClash(name), name).toMatch(/reserved/);
    }
    for (const name of ["@Ada", "\uff20Ada", "\u200b@Ada"]) expect(memberNameClash(name), name).toMatch(/@/);
    for (const name of ["Ann", "Al", "Ada", "Assistant Manager", "Ann @ home", "Aiden"]) {
      expect(memberNameClash(name), name).toBeNull();
    }
  });

  it("is part of the display name's schema, so every sign-in and rename checks it", () => {
    const result = DisplayName.safeParse("\u0410ssistant");
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain("reserved");
    expect(DisplayName.safeParse("  Ann  ").data).toBe("Ann");
  });
});
