/**
 * A room lists its running turns with the overseer only once they have run
 * for a while (the rule and why: domain/turns/lazy-run-index.ts).
 *
 * Why by hand: in agents 0.32 a facet's fiber gets the root from the
 * agent's `_rootAlarmOwner()` and awaits `_cf_registerFacetRun` on it
 * before the fiber's body (here, the whole chat turn) runs; there is no
 * option to defer it. So this replaces `_rootAlarmOwner` on this instance
 * with one that hands out the same root stub with those two calls made
 * lazy; every other call on the root (keep-alive, facet teardown) passes
 * through unchanged. If the framework's shape is not what this expects,
 * nothing is patched and runs are listed at once, as before.
 */
import { lazyRunIndex, type RunIndex } from "@/server/domain/turns/lazy-run-index";

type Root = Record<string | symbol, unknown> & {
  _cf_registerFacetRun: RunIndex["register"];
  _cf_unregisterFacetRun: RunIndex["unregister"];
};

export function deferRunIndex(agent: object): boolean {
  const host = agent as { _rootAlarmOwner?: () => Promise<Root> };
  const rootAlarmOwner = host._rootAlarmOwner;
  if (typeof rootAlarmOwner !== "function") return false;
  const root = () => rootAlarmOwner.call(agent);
  const index = lazyRunIndex({
    register: async (ownerPath, runId) => (await root())._cf_registerFacetRun(ownerPath, runId),
    unregister: async (ownerPath, runId) => (await root())._cf_unregisterFacetRun(ownerPath, runId)
  });
  host._rootAlarmOwner = async () =>
    // A Proxy, not a copy: the root is an RPC stub, whose methods exist only when asked for.
    new Proxy(await root(), {
      get(target, property) {
        if (property === "_cf_registerFacetRun") return index.register;
        if (property === "_cf_unregisterFacetRun") return index.unregister;
        return target[property];
      }
    });
  return true;
}
