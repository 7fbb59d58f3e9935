/**
 * Searches running at once (overseer/admission.ts): a search fans out over
 * the workspace's rooms on its one thread, so each person may run a few at
 * once and the workspace a few more; a finished search frees its place.
 * (The rate limit on searches is tested through the Worker, in
 * tests/worker/search.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { WorkspaceAdmission } from "@/server/agents/overseer/admission";
import { AppError } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import { NO_IDENTITY_LIMITS } from "@/server/domain/access/identity-limits";
import { MAX_SEARCHES_PER_IDENTITY, MAX_SEARCHES_PER_WORKSPACE } from "@/shared/constants";

const person = (id: string, address = "203.0.113.9"): Caller => ({
  identity: { id, name: id, kind: "user" },
  address
});

async function refusal(run: () => Promise<unknown>): Promise<AppError | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe("searches at once", () => {
  it("lets each person run a few, refusing the next with 429 until one ends", async () => {
    const admission = new WorkspaceAdmission("1", () => 0, NO_IDENTITY_LIMITS);
    const ann = person("ann");
    const running = await Promise.all(
      Array.from({ length: MAX_SEARCHES_PER_IDENTITY }, () => admission.admitSearch(ann))
    );
    const refused = await refusal(() => admission.admitSearch(ann));
    expect(refused?.status).toBe(429);
    expect(refused?.code).toBe("rate_limited:requests");
    expect(refused?.retryAfterSeconds).toBeGreaterThan(0);
    // Someone else is not held up by Ann's.
    const ben = await admission.admitSearch(person("ben"));
    running[0]();
    running[0](); // releasing twice frees one place only
    const again = await admission.admitSearch(ann);
    expect((await refusal(() => admission.admitSearch(ann)))?.status).toBe(429);
    for (const release of [...running.slice(1), ben, again]) release();
  });

  it("caps the workspace's searches at once across people", async () => {
    const admission = new WorkspaceAdmission("1", () => 0, NO_IDENTITY_LIMITS);
    const running = await Promise.all(
      Array.from({ length: MAX_SEARCHES_PER_WORKSPACE }, (_, i) =>
        admission.admitSearch(person(`p${i}`, `198.51.100.${i}`))
      )
    );
    const refused = await refusal(() => admission.admitSearch(person("late", "198.51.100.200")));
    expect(refused?.status).toBe(429);
    expect(refused?.message).toContain(`${MAX_SEARCHES_PER_WORKSPACE} searches are running`);
    running.pop()?.();
    expect(await refusal(() => admission.admitSearch(person("late", "198.51.100.200")))).toBeNull();
  });

  it("counts nothing when RATE_LIMIT_SCALE=0 turns limits off", async () => {
    const admission = new WorkspaceAdmission("0", () => 0, NO_IDENTITY_LIMITS);
    for (let i = 0; i < MAX_SEARCHES_PER_WORKSPACE * 3; i++) await admission.admitSearch(person("ann"));
  });
});
