/**
 * What every test layer's Vitest project shares: it runs from the
 * repository root over its own folder (tests/<name>), the groups run one
 * after another in `groupOrder` (unit, worker and integration share group 1,
 * whose files mostly wait; then the browser layer, bound by the CPU; then the
 * quick benchmark, which timed out beside it), and it resolves `@/…` to
 * `src/…` as tsconfig.json and vite.config.ts do.
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
