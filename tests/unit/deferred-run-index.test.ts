import { afterEach, describe, expect, it, vi } from "vitest";
import { deferRunIndex } from "@/server/agents/room/deferred-run-index";

/** An agent shaped like agents 0.32's facet: `_rootAlarmOwner()` hands out the root's stub, every call counted. */
function facet() {
  const calls: string[] = [];
  const root = {
    _cf_registerFacetRun: async (_path: unknown, runId: string) => void calls.push(`register ${runId}`),
    _cf_unregisterFacetRun: async (_path: unknown, runId: string) => void calls.push(`unregister ${runId}`),
    _cf_acquireFacetKeepAlive: async () => {
      calls.push("keep-alive");
      return "token";
    }
  };
  const agent = { _rootAlarmOwner: async () => root } as { _rootAlarmOwner: () => Promise<typeof root> };
  return { agent, calls };
}

describe("a facet's runs, listed with its root only once they run long", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("resolves the listing at once, lists the run after 10 s and unlists it at its end", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { agent, calls } = facet();
    expect(deferRunIndex(agent)).toBe(true);
    const root = await agent._rootAlarmOwner();
    await root._cf_registerFacetRun(["room"], "long");
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toEqual(["register long"]);
    await root._cf_unregisterFacetRun(["room"], "long");
    expect(calls).toEqual(["register long", "unregister long"]);
  });

  it("asks the root nothing for a run that ends sooner", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { agent, calls } = facet();
    deferRunIndex(agent);
    const root = await agent._rootAlarmOwner();
    await root._cf_registerFacetRun(["room"], "short");
    await vi.advanceTimersByTimeAsync(2_000);
    await root._cf_unregisterFacetRun(["room"], "short");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([]);
  });

  it("passes every other call on the root through unchanged", async () => {
    const { agent, calls } = facet();
    deferRunIndex(agent);
    const root = await agent._rootAlarmOwner();
    await expect(root._cf_acquireFacetKeepAlive()).resolves.toBe("token");
    expect(calls).toEqual(["keep-alive"]);
  });

  it("leaves an agent of another shape alone", () => {
    expect(deferRunIndex({})).toBe(false);
  });
});
