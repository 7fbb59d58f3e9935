import { afterEach, describe, expect, it, vi } from "vitest";
import { lazyRunIndex } from "@/server/domain/turns/lazy-run-index";

describe("a run listed with the root only once it runs long", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup(registerDelay?: () => Promise<void>) {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const log: string[] = [];
    const listed = new Set<string>();
    const index = lazyRunIndex(
      {
        async register(_path, runId) {
          log.push(`register ${runId}`);
          await registerDelay?.();
          listed.add(runId);
          log.push(`registered ${runId}`);
        },
        async unregister(_path, runId) {
          log.push(`unregister ${runId}`);
          listed.delete(runId);
        }
      },
      10_000
    );
    return { index, log, listed };
  }

  it("lists nothing, and asks the root nothing, for a run that ends before the deferral", async () => {
    const { index, log } = setup();
    await index.register(["room"], "r1");
    await vi.advanceTimersByTimeAsync(9_000);
    await index.unregister(["room"], "r1");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log).toEqual([]);
  });

  it("does not keep the run waiting for the root", async () => {
    let release: () => void = () => {};
    const { index, log } = setup(() => new Promise((resolve) => (release = resolve)));
    // Resolves at once, though the root would never answer.
    await index.register(["room"], "r1");
    expect(log).toEqual([]);
    release();
  });

  it("lists a run that outlives the deferral, and unlists it when it ends", async () => {
    const { index, log, listed } = setup();
    await index.register(["room"], "r1");
    await vi.advanceTimersByTimeAsync(10_000);
    expect([...listed]).toEqual(["r1"]);
    await index.unregister(["room"], "r1");
    expect(log).toEqual(["register r1", "registered r1", "unregister r1"]);
    expect(listed.size).toBe(0);
  });

  it("unlists only after a listing still under way has landed", async () => {
    let release: () => void = () => {};
    const { index, log, listed } = setup(() => new Promise((resolve) => (release = resolve)));
    await index.register(["room"], "r1");
    await vi.advanceTimersByTimeAsync(10_000);
    const ending = index.unregister(["room"], "r1");
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(["register r1"]);
    release();
    await ending;
    expect(log).toEqual(["register r1", "registered r1", "unregister r1"]);
    expect(listed.size).toBe(0);
  });

  it("keeps runs apart", async () => {
    const { index, listed } = setup();
    await index.register(["room"], "short");
    await vi.advanceTimersByTimeAsync(5_000);
    await index.register(["room"], "long");
    await index.unregister(["room"], "short");
    await vi.advanceTimersByTimeAsync(10_000);
    expect([...listed]).toEqual(["long"]);
  });

  it("reports a failed listing instead of throwing into the run", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const errors: unknown[] = [];
    const index = lazyRunIndex(
      { register: () => Promise.reject(new Error("root unreachable")), unregister: async () => {} },
      1_000,
      (error) => errors.push(error)
    );
    await index.register(["room"], "r1");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toHaveLength(1);
    await expect(index.unregister(["room"], "r1")).resolves.toBeUndefined();
  });
});
