import { describe, expect, it } from "vitest";
import { retryingImport } from "../../src/client/lib/retrying-import";

describe("retryingImport", () => {
  it("retries a failed load after each delay and resolves with the first success", async () => {
    const waited: number[] = [];
    let calls = 0;
    const load = retryingImport(
      async () => {
        calls++;
        if (calls < 3) throw new TypeError("Failed to fetch dynamically imported module");
        return "module";
      },
      [10, 20, 40],
      async (ms) => {
        waited.push(ms);
      }
    );
    await expect(load()).resolves.toBe("module");
    expect(calls).toBe(3);
    expect(waited).toEqual([10, 20]);
  });

  it("rejects with the last error once every attempt failed", async () => {
    let calls = 0;
    const load = retryingImport(
      async () => {
        calls++;
        throw new Error(`attempt ${calls}`);
      },
      [1, 1],
      async () => {}
    );
    await expect(load()).rejects.toThrow("attempt 3");
    expect(calls).toBe(3);
  });

  it("starts afresh on each call, so a later render can load after an earlier one gave up", async () => {
    let fail = true;
    const load = retryingImport(
      async () => {
        if (fail) throw new Error("down");
        return 42;
      },
      [],
      async () => {}
    );
    await expect(load()).rejects.toThrow("down");
    fail = false;
    await expect(load()).resolves.toBe(42);
  });
});
