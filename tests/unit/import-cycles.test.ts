import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/**
 * The modules a source text imports as values. Type-only imports are erased
 * by the compiler (`verbatimModuleSyntax`), so they cannot form a cycle at
 * run time: `import type`, `export type`, and imports whose every binding is
 * `type`.
 */
function valueImportSpecifiers(text: string): string[] {
  const source = ts.createSourceFile("module.ts", text, ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const bindings = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        !clause.name &&
        bindings !== undefined &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly);
      if (!onlyTypes) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers;
}

/** The project files a file imports as values: relative imports, and `@/…` (src/…). */
function valueImports(file: string): string[] {
  return valueImportSpecifiers(readFileSync(file, "utf8"))
    .filter((specifier) => specifier.startsWith(".") || specifier.startsWith("@/"))
    .map((specifier) => {
      const base = specifier.startsWith("@/")
        ? join(ROOT, "src", specifier.slice(2))
        : resolve(dirname(file), specifier);
      const candidates = /\.tsx?$/.test(base) ? [base] : [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")];
      return candidates.find((candidate) => existsSync(candidate));
    })
    .filter((path): path is string => path !== undefined);
}

/** Every cycle of a module graph, each as the chain of modules that closes it. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("module graph", () => {
  it("counts value imports and re-exports, not type-only ones", () => {
    const text = [
      'import { a } from "./a";',
      'import type { B } from "./b";',
      'import { type C, type D } from "./c";',
      'import { type E, e } from "./e";',
      'import * as f from "./f";',
      'import "./g";',
      'export { h } from "./h";',
      'export type { I } from "./i";'
    ].join("\n");
    expect(valueImportSpecifiers(text)).toEqual(["./a", "./e", "./f", "./g", "./h"]);
  });

  it("finds a cycle when there is one, and none in a tree", () => {
    expect(
      cyclesOf(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]]
        ])
      )
    ).toEqual([["a", "b", "c", "a"]]);
    expect(
      cyclesOf(
        new Map([
          ["a", ["b", "c"]],
          ["b", ["c"]],
          ["c", []]
        ])
      )
    ).toEqual([]);
  });

  it("has no import cycles in the server, the shared code or the client", () => {
    const graph = new Map(sourceFiles(join(ROOT, "src")).map((file) => [file, valueImports(file)]));
    expect(graph.size).toBeGreaterThan(100);
    // Imports through the `@/` alias are edges too: a graph of relative
    // imports only would miss most of the server's.
    const aliased = [...graph.values()].flat().filter((target) => target.includes("/src/server/domain/"));
    expect(aliased.length).toBeGreaterThan(50);
    const cycles = cyclesOf(graph).map((cycle) => cycle.map((file) => relative(ROOT, file)));
    expect(cycles).toEqual([]);
  });

  it("keeps the agent layer off http/: agents and domain take their errors from src/server/app-error.ts", () => {
    const layer = [...sourceFiles(join(ROOT, "src/server/agents")), ...sourceFiles(join(ROOT, "src/server/domain"))];
    expect(layer.length).toBeGreaterThan(50);
    // Type imports count too: the error type is what must not come from http/.
    const offenders = layer.filter((file) => /\bfrom\s+"[^"]*\/http\/[^"]*"/.test(readFileSync(file, "utf8")));
    expect(offenders.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
