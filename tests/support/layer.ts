/**
 * What every test layer's Vitest project shares: it runs from the
 * repository root over its own folder (tests/<name>), the groups run one
 * after another in `groupOrder`, and it resolves `@/…` to `src/…` as
 * tsconfig.json and vite.config.ts do.
 *
 * `npm test` runs two Vitest processes side by side (scripts/test-runs.ts):
 * unit and worker in one, the server layers in the other. There, group 1
 * holds the layers whose files mostly wait (integration, and the quick
 * benchmark against the production build), GROUP_ONE_WORKERS files at a
 * time; group 2 the browser layer, bound by two cores' CPU, two at a time.
 * Within a group Vitest runs the projects in name order (bench before
 * integration), so the one long benchmark file starts first.
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

/**
 * Files at a time in group 1: Vitest wants one count per group, so each of
 * its layers uses this. Group 1 alone on a 2-CPU machine, one sitting: 348 s
 * and 537 CPU-s at 4, 290 s and 526 CPU-s at 6, 372 s and 713 CPU-s at 8
 * (each worker-layer slot is a workerd with the app loaded). In full `.ci/run`
 * runs, though, it took 353 s at 4 and 346 s at 6, the extra slots spending
 * what they saved on imports (Vitest's import time 159 s against 305 s): four.
 */
export const GROUP_ONE_WORKERS = 4;
