/**
 * Nothing here uses decorators: the build leaves out the agents SDK's Babel
 * pass, which exists only to compile them (scripts/agents-vite.ts). A
 * decorator added without that pass would fail at runtime, so this fails
 * first and says where.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** A decorator: `@name` or `@name(…)` opening a line, before a class or a member. */
const DECORATOR = /^\s*@[A-Za-z_$][\w$.]*\s*(\(|$)/m;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("decorators", () => {
  it("are recognised", () => {
    expect(DECORATOR.test("class A {\n  @callable()\n  hello() {}\n}")).toBe(true);
    expect(DECORATOR.test("@sealed\nclass A {}")).toBe(true);
    expect(DECORATOR.test("/**\n * @param x a value\n */\nconst email = 'a@b.c';")).toBe(false);
  });

  it("are used nowhere in the app, its tests or its benchmarks", () => {
    const found = ["src", "tests", "bench"]
      .flatMap((dir) => sources(path.join(ROOT, dir)))
      .filter((file) => DECORATOR.test(readFileSync(file, "utf8")))
      .map((file) => path.relative(ROOT, file));
    expect(found).toEqual([]);
  });
});
