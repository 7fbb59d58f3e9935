/**
 * What every test layer's Vitest project shares: it runs from the
 * repository root over its own folder (tests/<name>), the groups run one
 * after another in `groupOrder`, and it resolves `@/…` to `src/…` as
 * tsconfig.json and vite.config.ts do.
 *
 * Three groups, each with its own count of files at a time (Vitest wants
 * one count per group):
 * 1. the fast loop, unit and worker (FAST_LOOP_WORKERS);
 * 2. the server layers whose files mostly wait: integration, and the quick
 *    benchmark against the production build (SERVER_LAYER_WORKERS);
 * 3. the browser layer, bound by two cores' CPU, two at a time.
 * `npm test` runs group 1 in one Vitest process beside groups 2 and 3 in
 * another (scripts/test-runs.ts). Within a group Vitest runs the projects
 * in name order (bench before integration), so the one long benchmark file
 * starts first.
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
 * Files at a time in the fast loop. Alone, a worker file mostly waits (the
 * offline model paces its chunks, rooms report in the background), and each
 * slot is a workerd with the app loaded: `npm run test:fast` on a 2-CPU
 * machine, a fresh clone, one run after the other, took 197 s and 269 CPU-s
 * at four, 158 s and 258 CPU-s at six. Beside the server layers (`npm test`
 * sets ROOMS_FAST_LOOP_WORKERS=4, scripts/test-runs.ts) both cores are busy
 * all through: six saved nothing there (.ci/run 11m17s and 11m33s against
 * 10m57s at four), and the tests that open a hundred or two hundred sockets
 * into one room, sharing the cores with more files, ran into their timeouts.
 */
export const FAST_LOOP_WORKERS = Number(process.env.ROOMS_FAST_LOOP_WORKERS) || 6;

/**
 * Files at a time in the integration layer and the quick benchmark: a file
 * mostly waits on its server and the fake provider, but a file with a server
 * of its own boots one, so more at once only crowds the boots together.
 */
export const SERVER_LAYER_WORKERS = 4;
