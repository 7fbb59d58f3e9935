/**
 * What every test layer's Vitest project shares: it runs from the
 * repository root over its own folder (tests/<name>), the groups run one
 * after another in `groupOrder`, and it resolves `@/…` to `src/…` as
 * tsconfig.json and vite.config.ts do.
 *
 * Group 1 holds the layers whose files mostly wait (unit, worker,
 * integration, and the quick benchmark against the production build), four
 * files at a time; group 2 the browser layer, bound by two cores' CPU, two
 * at a time. Within a group Vitest runs the projects in name order (bench,
 * integration, unit, worker), so the one long benchmark file starts first.
 */
import { fileURLToPath } from "node:url";

export function testLayer(name: string, groupOrder: number) {
  return {
    name,
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: [`tests/${name}/**/*.test.ts`],
    sequence: { groupOrder },
    alias: { "@": fileURLToPath(new URL("../../src", import.meta.url)) }
  };
}
