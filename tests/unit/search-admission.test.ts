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
import { MAX_SEARCHES_PER_IDENTITY, MAX_SEARCHES_PER_WORKSPACE } from "@/shared/constants";

const person = (id: string, address = "203.0.113.9"): Caller => ({
  identity: { id, name: id, kind: "user" },
  address
});

function refusal(run: () => unknown): AppError | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe("searches at once", () => {
  it("lets each person run a few, refusing the next with 429 until one ends", () => {
    const admission = new WorkspaceAdmission("1", () => 0);
    const ann = person("ann");
    const running = Array.from({ length: MAX_SEARCHES_PER_IDENTITY }, () => admission.admitSearch(ann));
    const refused = refusal(() => admission.admitSearch(ann));
    expect(refused?.status).toBe(429);
    expect(refused?.code).toBe("rate_limited:requests");
    expect(refused?.retryAfterSeconds).toBeGreaterThan(0);
    // Someone else is not held up by Ann's.
    const ben = admission.admitSearch(person("ben"));
    running[0]();
    running[0](); // releasing twice frees one place only
    const again = admission.admitSearch(ann);
    expect(refusal(() => admission.admitSearch(ann))?.status).toBe(429);
    for (const release of [...running.slice(1), ben, again]) release();
  });

  it("caps the workspace's searches at once across people", () => {
    const admission = new WorkspaceAdmission("1", () => 0);
    const running = Array.from({ length: MAX_SEARCHES_PER_WORKSPACE }, (_, i) =>
      admission.admitSearch(person(`p${i}`, `198.51.100.${i}`))
    );
    const refused = refusal(() => admission.admitSearch(person("late", "198.51.100.200")));
    expect(refused?.status).toBe(429);
    expect(refused?.message).toContain(`${MAX_SEARCHES_PER_WORKSPACE} searches are running`);
    running.pop()?.();
    expect(refusal(() => admission.admitSearch(person("late", "198.51.100.200")))).toBeNull();
  });

  it("counts nothing when RATE_LIMIT_SCALE=0 turns limits off", () => {
    const admission = new WorkspaceAdmission("0", () => 0);
    for (let i = 0; i < MAX_SEARCHES_PER_WORKSPACE * 3; i++) admission.admitSearch(person("ann"));
  });
});
