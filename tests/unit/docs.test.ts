/**
 * The docs stay true to the tree: every variable `src/server/env.ts`
 * declares is documented in docs/configuration.md and listed in
 * .dev.vars.example, every relative link in a tracked Markdown file (and
 * its #anchor) leads somewhere, no tracked Markdown holds a path of one
 * machine or the project's internal chronology (history is what git is
 * for), the README stays a front door and BENCHMARKS.md a report.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The members of `interface Env`: string ones are variables, the rest bindings. */
function envMembers(): { variables: string[]; bindings: string[] } {
  const source = ts.createSourceFile("env.ts", read("src/server/env.ts"), ts.ScriptTarget.Latest, true);
  const variables: string[] = [];
  const bindings: string[] = [];
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== "Env") return;
    for (const member of node.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      const name = member.name.getText(source);
      (member.type.kind === ts.SyntaxKind.StringKeyword ? variables : bindings).push(name);
    }
  });
  return { variables, bindings };
}

/**
 * Markdown files git tracks, or would (new files not ignored); a checkout
 * without git: every .md outside dependencies and builds.
 */
function trackedMarkdown(): string[] {
  try {
    return execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.md"], {
      cwd: ROOT,
      encoding: "utf8"
    })
      .split("\0")
      .filter((path) => path !== "" && existsSync(join(ROOT, path)));
  } catch {
    const walk = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
        if (entry.name.startsWith(".") || ["node_modules", "dist"].includes(entry.name)) return [];
        const path = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) return walk(path);
        return entry.name.endsWith(".md") ? [path] : [];
      });
    return walk("");
  }
}

/** The text of a Markdown file outside fenced code blocks, line by line. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

/** GitHub's anchors for a Markdown file's headings (duplicates get -1, -2, …). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Absolute paths of one machine's folders: a reader's machine has none of them. */
const MACHINE_PATH = /(?<![\w.~/-])\/(?:work\/|root\/|tmp\/[\w.-]|home\/\w|Users\/\w)/;
/** The project's own chronology ("session 18", "before the last round"), which means nothing to a reader. */
const CHRONOLOGY = [
  /\b(?:session|round) \d+\b/i,
  /\b(?:last|previous|earlier|next) (?:round|session)\b/i,
  /\bthis round\b/i,
  /\bs\d{2}-[a-z]+\b/
];

/**
 * The repository paths a line of Markdown names in code spans: from the root
 * (`src/…`, `tests/…`, `bench/…`), or, as the docs abbreviate them, from
 * src/ (`server/…`, `shared/…`, `client/…`) or src/server/ (`agents/…`,
 * `domain/…`, `http/…`, `routes/…`, `model/…`): files with an extension
 * and folders with a trailing slash. Globs and placeholders (`<id>`, `*`)
 * are skipped, and so are package paths (`agents/observability/ai`).
 */
function sourcePathsIn(line: string): string[] {
  const paths: string[] = [];
  for (const span of line.matchAll(/`([^`]+)`/g)) {
    for (const token of span[1].split(/[\s,()]+/)) {
      const path = token.replace(/[.:;]+$/, "");
      if (!/^[\w@.-]+(\/[\w@.-]+)*(\.[a-z]+|\/)$/.test(path) || !path.includes("/") || /[<>*]/.test(path)) continue;
      const [head] = path.split("/");
      if (["src", "tests", "bench"].includes(head)) paths.push(path);
      else if (["server", "shared", "client"].includes(head)) paths.push(`src/${path}`);
      else if (["agents", "domain", "http", "routes", "model"].includes(head)) paths.push(`src/server/${path}`);
    }
  }
  return paths;
}

describe("docs/configuration.md and .dev.vars.example", () => {
  const { variables, bindings } = envMembers();
  const configuration = read("docs/configuration.md");
  const documented = new Set([...configuration.matchAll(/^\|\s*`([A-Za-z_][A-Za-z0-9_]*)`\s*\|/gm)].map((m) => m[1]));

  it("finds the variables and bindings env.ts declares", () => {
    expect(variables).toContain("OPENAI_API_KEY");
    expect(bindings).toContain("OverseerAgent");
  });

  it("documents every variable and binding env.ts declares, each in a table row of its own", () => {
    const missing = [...variables, ...bindings].filter((name) => !documented.has(name));
    expect(missing, "declared in src/server/env.ts but not documented in docs/configuration.md").toEqual([]);
  });

  it("lists every variable in .dev.vars.example", () => {
    const example = read(".dev.vars.example");
    const listed = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    const missing = variables.filter((name) => !listed.has(name));
    expect(missing, "declared in src/server/env.ts but not in .dev.vars.example").toEqual([]);
  });
});

describe("docs/api.md", () => {
  /**
   * Every path a route file declares (`.get("/:id/memory", …)`), relative to
   * where it is mounted: docs/api.md must name each one in a full route.
   */
  const routePaths = readdirSync(join(ROOT, "src/server/routes"))
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) =>
      [...read(`src/server/routes/${name}`).matchAll(/\.(?:get|post|put|patch|delete)\(\s*"(\/[^"]+)"/g)].map(
        (m) => `${name}: ${m[1]}`
      )
    );

  it("finds the routes", () => {
    expect(routePaths.length).toBeGreaterThan(20);
  });

  it("documents every route the route files declare", () => {
    const api = read("docs/api.md");
    const missing = routePaths.filter((route) => {
      const path = route.split(": ")[1];
      return !new RegExp(
        `\`(?:GET|POST|PUT|PATCH|DELETE) /api/[^\`]*${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=[\`?])`
      ).test(api);
    });
    expect(missing, "declared in src/server/routes but not in docs/api.md").toEqual([]);
  });
});

describe("tracked Markdown", () => {
  const files = trackedMarkdown();

  it("includes the README and the docs", () => {
    expect(files).toContain("README.md");
    expect(files).toContain("docs/configuration.md");
  });

  it("links only to files that exist, and to headings they have", () => {
    const broken: string[] = [];
    for (const file of files) {
      const lines = proseLines(read(file));
      lines.forEach((line, index) => {
        for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
          const target = match[1];
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
          const [path, fragment] = target.split("#", 2);
          const absolute = path === "" ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), path);
          const where = `${file}:${index + 1} → ${target}`;
          if (!existsSync(absolute)) broken.push(`${where} (no such file)`);
          else if (fragment && absolute.endsWith(".md") && !anchorsOf(readFileSync(absolute, "utf8")).has(fragment))
            broken.push(`${where} (no heading #${fragment} in ${relative(ROOT, absolute)})`);
        }
      });
    }
    expect(broken).toEqual([]);
  });

  it("names only source paths that exist", () => {
    const missing: string[] = [];
    for (const file of files) {
      proseLines(read(file)).forEach((line, index) => {
        for (const path of sourcePathsIn(line))
          if (!existsSync(join(ROOT, path))) missing.push(`${file}:${index + 1}: ${path}`);
      });
    }
    expect(missing).toEqual([]);
  });

  it("holds no absolute path of a machine's folders, in prose or in code", () => {
    const found = files.flatMap((file) =>
      read(file)
        .split("\n")
        .flatMap((line, index) => (MACHINE_PATH.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []))
    );
    expect(found).toEqual([]);
  });

  it("tells no internal chronology (sessions, rounds); git keeps the history", () => {
    const found = files.flatMap((file) =>
      read(file)
        .split("\n")
        .flatMap((line, index) =>
          CHRONOLOGY.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []
        )
    );
    expect(found).toEqual([]);
  });

  it("catches what it looks for", () => {
    for (const line of ["cd /work/wt/lead", "(`/tmp/x`)", "see /home/ann/rooms", "/root/.npmrc"])
      expect(MACHINE_PATH.test(line), line).toBe(true);
    for (const line of ["https://example.com/work/x", "<tmpdir>/rooms-bench", "src/server/routes/", "/api/rooms"])
      expect(MACHINE_PATH.test(line), line).toBe(false);
    for (const line of ["the figures to quote from session 18", "before the last round", "slice s18-floor"])
      expect(
        CHRONOLOGY.some((pattern) => pattern.test(line)),
        line
      ).toBe(true);
    expect(CHRONOLOGY.some((pattern) => pattern.test("a session cookie; sessions last 30 days"))).toBe(false);
    expect(sourcePathsIn("see `agents/room/parent.ts` and `src/shared/errors.ts`, not `/api/rooms/<id>`")).toEqual([
      "src/server/agents/room/parent.ts",
      "src/shared/errors.ts"
    ]);
  });

  it("keeps README.md a front door: at most 200 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(200);
  });

  it("keeps BENCHMARKS.md a report: at most 300 lines, the headline table first", () => {
    const text = read("BENCHMARKS.md");
    expect(text.split("\n").length).toBeLessThanOrEqual(300);
    const sections = text.split(/^## /m);
    expect(sections[1]?.startsWith("Headline figures")).toBe(true);
    expect(sections[1]).toMatch(/^\| figure\s+\| value\s+\| command\s+\| machine\s+\| date/m);
  });
});
