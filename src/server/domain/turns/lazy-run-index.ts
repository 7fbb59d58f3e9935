/**
 * A facet's durable run, listed with its root only once it has run for a
 * while (pure; room/deferred-run-index.ts wires it into the room).
 *
 * Every chat turn runs in a framework fiber: a `cf_agents_runs` row in the
 * room's own SQLite, so a turn cut off by a restart is resumed. In a facet
 * the fiber also lists that row with the root (`_cf_registerFacetRun`: an
 * RPC to the overseer, a row there and a re-plan of its alarm), so the
 * root's alarm can wake an idle room to resume it, and unlists it when the
 * turn ends (another RPC and re-plan). The framework awaits the listing
 * before the turn's body runs, so it stood between every send and its
 * model request.
 *
 * The room's own row is written at once, as before, and the room resumes it
 * itself whenever it next wakes (the framework checks its runs on start);
 * a room wakes as soon as anyone reconnects to it. The listing only matters
 * for a turn cut off with nobody coming back, so it is made once the turn
 * has run for `deferMs`: a turn cut off sooner is resumed on the room's next
 * wake instead of by the root's alarm, and a turn that ends sooner (most of
 * them) costs the root nothing.
 */
const RUN_INDEX_DEFER_MS = 10_000;

/** The root's index of its facets' runs, as the framework calls it. */
export interface RunIndex {
  register(ownerPath: unknown, runId: string): Promise<void>;
  unregister(ownerPath: unknown, runId: string): Promise<void>;
}

interface PendingRun {
  timer: ReturnType<typeof setTimeout> | null;
  /** The listing, once its timer fired: an unlisting waits for it. */
  listed: Promise<void> | null;
}

export function lazyRunIndex(
  index: RunIndex,
  deferMs = RUN_INDEX_DEFER_MS,
  onError: (error: unknown) => void = (error) => console.error("[rooms] listing a run with the root failed:", error)
): RunIndex {
  const runs = new Map<string, PendingRun>();
  return {
    async register(ownerPath, runId) {
      const run: PendingRun = { timer: null, listed: null };
      run.timer = setTimeout(() => {
        run.timer = null;
        run.listed = index.register(ownerPath, runId).catch(onError);
      }, deferMs);
      runs.set(runId, run);
    },
    async unregister(ownerPath, runId) {
      const run = runs.get(runId);
      runs.delete(runId);
      if (run?.timer) {
        clearTimeout(run.timer);
        return;
      }
      // Listed (or not known here, e.g. listed by a previous life): unlist it, after the listing landed.
      await run?.listed;
      await index.unregister(ownerPath, runId);
    }
  };
}
