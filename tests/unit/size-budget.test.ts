/**
 * The size budget `npm run check` enforces (scripts/size-budget.ts): that it
 * measures what it says, and that its allow-list can only shrink.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkTree, MAX_FILE_LINES, MAX_FUNCTION_LINES, measure, problems } from "../../scripts/size-budget";

const lines = (n: number, line = "  x++;") => Array.from({ length: n }, () => line).join("\n");

describe("size budget", () => {
  it("measures files and every kind of function, and names them", () => {
    const longBody = lines(MAX_FUNCTION_LINES - 1);
    const text = [
      `export function declared() {\n${longBody}\n}`,
      `const arrow = () => {\n${longBody}\n};`,
      `class C {\n  method() {\n${longBody}\n  }\n  #hidden() {\n${lines(3)}\n  }\n}`,
      `export const short = () => 1;`
    ].join("\n");
    const over = measure([{ path: "src/a.ts", text }]);
    expect([...over.keys()].sort()).toEqual(["src/a.ts#arrow", "src/a.ts#declared", "src/a.ts#method"]);
    expect(over.get("src/a.ts#declared")).toBe(MAX_FUNCTION_LINES + 1);
    const long = measure([{ path: "src/b.ts", text: `${lines(MAX_FILE_LINES + 1, "// x")}\n` }]);
    expect(long.get("src/b.ts")).toBe(MAX_FILE_LINES + 1);
    expect(measure([{ path: "src/c.ts", text: `${lines(MAX_FILE_LINES, "// x")}\n` }]).size).toBe(0);
  });

  it("refuses what is over and unlisted, a listed size that grew, and an entry no longer needed", () => {
    const over = new Map([
      ["src/a.ts", 520],
      ["src/b.ts#f", 130]
    ]);
    expect(problems(over, [{ what: "src/b.ts#f", lines: 130, why: "test" }])).toEqual([
      "src/a.ts: 520 lines, over the budget of 500: split it"
    ]);
    expect(
      problems(over, [
        { what: "src/a.ts", lines: 510, why: "test" },
        { what: "src/b.ts#f", lines: 140, why: "test" }
      ])
    ).toEqual(["src/a.ts: 520 lines, grew past its listed 510: split it"]);
    expect(problems(new Map(), [{ what: "src/gone.ts", lines: 600, why: "test" }])).toEqual([
      "src/gone.ts: within budget now: delete its OVER_BUDGET entry"
    ]);
  });

  it("holds for the tree", () => {
    expect(checkTree(fileURLToPath(new URL("../..", import.meta.url)))).toEqual([]);
  });
});
