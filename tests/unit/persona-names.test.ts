import { describe, expect, it } from "vitest";
import { isReservedName } from "@/server/domain/personas/persona-names";
import { addPersona } from "@/server/domain/personas/persona-roster";
import { looksAlike, nameSkeleton } from "@/shared/names";
import type { Persona } from "@/shared/personas";

describe("persona names", () => {
  it("reads look-alike letters, compatibility forms, case and accents as one skeleton", () => {
    expect(nameSkeleton("Ada")).toBe("ada");
    expect(looksAlike("Ada", "\u0410da")).toBe(true); // Cyrillic А
    expect(looksAlike("Ada", "\u0391d\u03b1")).toBe(true); // Greek Α, α
    expect(looksAlike("Ada", "\uff21da")).toBe(true); // fullwidth Ａ
    expect(looksAlike("Ada", "Àda")).toBe(true);
    expect(looksAlike("Bob", "B0b")).toBe(true);
    expect(looksAlike("Ada", "Ava")).toBe(false);
    expect(looksAlike("Kai", "Kal")).toBe(false);
  });

  it("reserves the assistant's and the model's roles, however they are spelled", () => {
    for (const name of ["Assistant", "assistant", "\u0410ssistant", "System", "SYSTEM", "user", "Tool", "Model"])
      expect(isReservedName(name), name).toBe(true);
    for (const name of ["Ada", "Assistant2", "Systems"]) expect(isReservedName(name), name).toBe(false);
  });

  it("refuses a reserved name and one that looks like a persona already in the room", () => {
    const { list } = addPersona([], { name: "Ada" }, 0, () => "p1");
    const refused = (name: string, roster: readonly Persona[] = list) => {
      try {
        addPersona(roster, { name }, 0, () => "p2");
        return null;
      } catch (error) {
        return error as { status: number; code: string; message: string };
      }
    };
    expect(refused("\u0410da")).toMatchObject({ status: 409, code: "conflict:persona_name" });
    expect(refused("\u0410da")?.message).toContain("looks like @Ada");
    expect(refused("Assistant", [])).toMatchObject({ status: 409, code: "conflict:persona_name" });
    expect(refused("Ava")).toBeNull();
  });
});
