import { afterEach, describe, expect, it, vi } from "vitest";
import { lazyKeepAlive } from "@/server/domain/turns/lazy-keep-alive";

describe("keep-alive only for long work", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function setup() {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const log: string[] = [];
    let refs = 0;
    const acquire = async () => {
      refs++;
      log.push("acquire");
      return () => {
        refs--;
        log.push("release");
      };
    };
    return { log, acquire, refs: () => refs };
  }

  it("takes no keep-alive for work that ends before the deferral", async () => {
    const { log, acquire } = setup();
    const dispose = lazyKeepAlive(acquire, 10_000);
    await vi.advanceTimersByTimeAsync(9_000);
    dispose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log).toEqual([]);
  });

  it("takes the keep-alive once the work outlives the deferral, and releases it when the work ends", async () => {
    const { log, acquire, refs } = setup();
    const dispose = lazyKeepAlive(acquire, 10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(log).toEqual(["acquire"]);
    expect(refs()).toBe(1);
    dispose();
    dispose(); // idempotent, as the framework's disposer is
    expect(log).toEqual(["acquire", "release"]);
    expect(refs()).toBe(0);
  });

  it("releases a keep-alive that arrives after the work already ended", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let grant: ((dispose: () => void) => void) | undefined;
    let released = 0;
    const dispose = lazyKeepAlive(
      () =>
        new Promise((resolve) => {
          grant = resolve;
        }),
      1_000
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(grant).toBeDefined();
    dispose();
    grant?.(() => released++);
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toBe(1);
  });

  it("reports a failed keep-alive instead of throwing into the work", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const errors: unknown[] = [];
    const dispose = lazyKeepAlive(
      () => Promise.reject(new Error("root unreachable")),
      1_000,
      (error) => errors.push(error)
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toHaveLength(1);
    dispose();
  });
});
