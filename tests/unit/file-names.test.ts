/**
 * Every source file under src/ has its own name. A name is how a reader
 * finds a file (an editor's quick-open, a stack trace, a comment saying
 * "see room-search.ts"), so two files called search.ts in different
 * folders send them to the wrong one. A file's role in the name settles a
 * clash: routes/search-routes.ts, agents/room/room-search.ts,
 * agents/overseer/workspace-search.ts, domain/search/search-ranking.ts, and
 * the wire types keep the plain name (shared/search.ts).
 */
import { readdirSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Names that may still appear twice, each with the files and why. This list only shrinks. */
const SHARED_NAMES: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

describe("source file names", () => {
  it("are distinct across src/, but for the listed ones", () => {
    const byName = new Map<string, string[]>();
    for (const file of sourceFiles(join(ROOT, "src"))) {
      const name = basename(file).replace(/\.tsx?$/, "");
      byName.set(name, [...(byName.get(name) ?? []), relative(ROOT, file)]);
    }
    expect(byName.size).toBeGreaterThan(150);
    const clashes = Object.fromEntries(
      [...byName].filter(([, files]) => files.length > 1).map(([name, files]) => [name, files.sort().join(", ")])
    );
    expect(clashes).toEqual(SHARED_NAMES);
  });
});
