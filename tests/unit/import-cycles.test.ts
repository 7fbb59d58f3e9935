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
 * Every module a source text names: imports and re-exports, type-only ones
 * too, and `import("…")` (a dynamic import, or one in a type position).
 * Type-only imports are erased by the compiler, so they cannot form a cycle
 * at run time; they are still an arrow from one module to another, and a
 * circle of them means no module of it can be read, changed or tested
 * without the others. The house rule: every import points down.
 */
function importSpecifiers(text: string): { specifier: string; typeOnly: boolean }[] {
  const cached = parsed.get(text);
  if (cached) return cached;
  const source = ts.createSourceFile("module.tsx", text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          !clause.name &&
          bindings !== undefined &&
          ts.isNamedImports(bindings) &&
          bindings.elements.length > 0 &&
          bindings.elements.every((element) => element.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  parsed.set(text, found);
  return found;
}

/** Each text is parsed once, however many graphs are built from it. */
const parsed = new Map<string, { specifier: string; typeOnly: boolean }[]>();

/** The project files a file imports (relative imports, and `@/…`, which is src/…), values only or every one. */
function projectImports(file: string, which: "values" | "all"): string[] {
  return importSpecifiers(readFileSync(file, "utf8"))
    .filter(({ typeOnly }) => which === "all" || !typeOnly)
    .map(({ specifier }) => specifier)
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

/**
 * Circles of type imports still waiting to be undone, each with who undoes
 * it. This list only shrinks; a circle of value imports is never allowed.
 */
const KNOWN_TYPE_CIRCLES: string[] = [];

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

/**
 * What each layer of src/ may import, besides itself: every import points
 * down (CONTRIBUTING.md, "The layers"). A file belongs to the first layer
 * whose path starts its own; type imports count.
 */
const SHARED = "src/shared/";
const ERRORS = ["src/server/app-error.ts", "src/server/log.ts"];
const DOMAIN = "src/server/domain/";
const CONTRACTS = "src/server/contracts/";
const ENV = "src/server/env.ts";
const MODEL = "src/server/model/";
/** MCP client plumbing (servers, guarded fetch), shared by rooms and the overseer, which keeps the workspace's servers. */
const MCP = "src/server/mcp/";
/** The facet classes a room's jobs spawn (they never import the room back: agents/room/parent.ts). */
const FACETS = [
  "src/server/agents/persona-agent.ts",
  "src/server/agents/persona-turns.ts",
  "src/server/agents/task-agent.ts"
];
const LAYERS: ReadonlyArray<readonly [layer: string, mayImport: readonly string[]]> = [
  [SHARED, []],
  ["src/client/", [SHARED]],
  ["src/server/app-error.ts", [SHARED]],
  ["src/server/log.ts", [SHARED]],
  [DOMAIN, [...ERRORS, SHARED]],
  [CONTRACTS, [DOMAIN, ...ERRORS, SHARED]],
  [ENV, [CONTRACTS]],
  [MODEL, [DOMAIN, ...ERRORS, ENV, SHARED]],
  [MCP, [DOMAIN, ...ERRORS, SHARED]],
  ["src/server/files/", [DOMAIN, CONTRACTS, ...ERRORS, ENV, SHARED]],
  ["src/server/http/", [DOMAIN, CONTRACTS, ...ERRORS, ENV, SHARED]],
  ["src/server/agents/overseer/", [CONTRACTS, DOMAIN, MODEL, MCP, ...ERRORS, ENV, SHARED]],
  ["src/server/agents/room/", [...FACETS, CONTRACTS, DOMAIN, MODEL, MCP, ...ERRORS, ENV, SHARED]],
  ["src/server/agents/", [CONTRACTS, DOMAIN, MODEL, MCP, ...ERRORS, ENV, SHARED]],
  ["src/server/routes/", ["src/server/http/", "src/server/files/", CONTRACTS, DOMAIN, ...ERRORS, ENV, SHARED]],
  ["src/server/index.ts", ["src/server/", SHARED]]
];

describe("module graph", () => {
  it("reads every import, and which are type-only", () => {
    const text = [
      'import { a } from "./a";',
      'import type { B } from "./b";',
      'import { type C, type D } from "./c";',
      'import { type E, e } from "./e";',
      'import * as f from "./f";',
      'import "./g";',
      'export { h } from "./h";',
      'export type { I } from "./i";',
      'type J = import("./j").J;',
      'const k = () => import("./k");'
    ].join("\n");
    expect(importSpecifiers(text)).toEqual([
      { specifier: "./a", typeOnly: false },
      { specifier: "./b", typeOnly: true },
      { specifier: "./c", typeOnly: true },
      { specifier: "./e", typeOnly: false },
      { specifier: "./f", typeOnly: false },
      { specifier: "./g", typeOnly: false },
      { specifier: "./h", typeOnly: false },
      { specifier: "./i", typeOnly: true },
      { specifier: "./j", typeOnly: true },
      { specifier: "./k", typeOnly: false }
    ]);
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

  it("has no cycle of value imports in the server, the shared code or the client", () => {
    const graph = new Map(sourceFiles(join(ROOT, "src")).map((file) => [file, projectImports(file, "values")]));
    expect(graph.size).toBeGreaterThan(100);
    // Imports through the `@/` alias are edges too: a graph of relative
    // imports only would miss most of the server's.
    const aliased = [...graph.values()].flat().filter((target) => target.includes("/src/server/domain/"));
    expect(aliased.length).toBeGreaterThan(50);
    const cycles = cyclesOf(graph).map((cycle) => cycle.map((file) => relative(ROOT, file)));
    expect(cycles).toEqual([]);
  });

  it("has no import circle, type imports included, but the listed ones", () => {
    const graph = new Map(sourceFiles(join(ROOT, "src")).map((file) => [file, projectImports(file, "all")]));
    const typeEdges = [...graph.values()].flat().length;
    const valueEdges = sourceFiles(join(ROOT, "src")).flatMap((file) => projectImports(file, "values")).length;
    expect(typeEdges).toBeGreaterThan(valueEdges);
    const circles = cyclesOf(graph).map((cycle) => cycle.map((file) => relative(ROOT, file)).join(" -> "));
    expect(circles).toEqual(KNOWN_TYPE_CIRCLES);
  });

  it("points every import down the layers, type imports included", () => {
    const layerOf = (file: string) => LAYERS.find(([layer]) => file.startsWith(layer));
    const wrong: string[] = [];
    for (const file of sourceFiles(join(ROOT, "src")).map((path) => relative(ROOT, path))) {
      const layer = layerOf(file);
      if (!layer) continue;
      const [own, mayImport] = layer;
      for (const target of projectImports(join(ROOT, file), "all").map((path) => relative(ROOT, path))) {
        if (target.startsWith(own) || mayImport.some((allowed) => target.startsWith(allowed))) continue;
        wrong.push(`${file} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(layerOf("src/server/agents/room/room-jobs.ts")?.[0]).toBe("src/server/agents/room/");
  });

  it("keeps the agent layer off http/: agents and domain take their errors from src/server/app-error.ts", () => {
    const layer = [...sourceFiles(join(ROOT, "src/server/agents")), ...sourceFiles(join(ROOT, "src/server/domain"))];
    expect(layer.length).toBeGreaterThan(50);
    // Type imports count too: the error type is what must not come from http/.
    const offenders = layer.filter((file) => /\bfrom\s+"[^"]*\/http\/[^"]*"/.test(readFileSync(file, "utf8")));
    expect(offenders.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it("keeps the contracts low: src/server/contracts imports no agent, route, http or model module", () => {
    const contracts = sourceFiles(join(ROOT, "src/server/contracts"));
    expect(contracts.length).toBeGreaterThanOrEqual(3);
    const above = ["agents", "routes", "http", "model", "index.ts"].map((name) => join(ROOT, "src/server", name));
    const offenders = contracts.flatMap((file) =>
      projectImports(file, "all")
        .filter((target) => above.some((dir) => target.startsWith(dir)))
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`)
    );
    expect(offenders).toEqual([]);
  });
});
