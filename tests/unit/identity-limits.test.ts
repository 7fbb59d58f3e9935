/**
 * An identity's limits across workspaces (domain/access/identity-limits.ts):
 * the buckets one LimitKeeper holds, and how an overseer's admission asks
 * for them (overseer/admission.ts): only once its own limits pass, refusing
 * with the keeper's 429, and not at all when limits are off. (That one
 * identity is refused in a second workspace is tested through the Worker,
 * in tests/worker/identity-limits.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { WorkspaceAdmission } from "@/server/agents/overseer/admission";
import { AppError } from "@/server/app-error";
import type { Caller } from "@/server/domain/access/caller";
import {
  IDENTITY_LIMITS,
  IdentityBuckets,
  type IdentityLimits,
  type LimitKind
} from "@/server/domain/access/identity-limits";
import type { Admission } from "@/server/domain/access/rate-limit";
import { FILE_UPLOAD_RATE, MAX_SEARCHES_PER_IDENTITY, RATE_LIMITS } from "@/shared/constants";

const KINDS: LimitKind[] = ["send", "create", "upload", "search"];

/** How many takes pass at one instant before the first refusal. */
function burstOf(buckets: IdentityBuckets, kind: LimitKind, now = 0): number {
  let n = 0;
  while (buckets.take(kind, now).ok) if (++n > 10_000) break;
  return n;
}

describe("one identity's buckets", () => {
  it("has the same allowance as one workspace gives today", () => {
    expect(IDENTITY_LIMITS).toEqual({
      send: RATE_LIMITS.restSend,
      create: RATE_LIMITS.restRoomCreate,
      upload: FILE_UPLOAD_RATE,
      search: RATE_LIMITS.restSearch
    });
    for (const kind of KINDS) expect(burstOf(new IdentityBuckets(1), kind)).toBe(IDENTITY_LIMITS[kind].burst);
  });

  it("keeps each kind apart: no searches left leaves new rooms untouched", () => {
    const buckets = new IdentityBuckets(1);
    burstOf(buckets, "search");
    const refused = buckets.take("search", 0);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? 0 : refused.retryAfterMs).toBe(Math.ceil(60_000 / RATE_LIMITS.restSearch.perMinute));
    for (const kind of KINDS.filter((k) => k !== "search")) expect(buckets.take(kind, 0).ok).toBe(true);
  });

  it("refills with time and scales with RATE_LIMIT_SCALE; 0 is off", () => {
    const buckets = new IdentityBuckets(0.1);
    expect(burstOf(buckets, "create")).toBe(Math.round(RATE_LIMITS.restRoomCreate.burst * 0.1));
    expect(buckets.take("create", 60_000).ok).toBe(true);
    const off = new IdentityBuckets(0);
    for (const kind of KINDS) for (let i = 0; i < 100; i++) expect(off.take(kind, 0).ok).toBe(true);
  });
});

/** A keeper that records what it is asked and answers `answer`. */
function fakeKeeper(answer: Admission = { ok: true }) {
  const asked: Array<[string, LimitKind]> = [];
  const limits: IdentityLimits & { answer: Admission } = {
    answer,
    async take(key, kind) {
      asked.push([key, kind]);
      return limits.answer;
    }
  };
  return { asked, limits };
}

const ann: Caller = { identity: { id: "ann", name: "Ann", kind: "user" }, address: "203.0.113.5" };

async function refusal(run: () => Promise<unknown>): Promise<AppError | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe("a workspace's admission asks the identity's keeper", () => {
  it("after its own limits pass, by identity key and kind", async () => {
    const { asked, limits } = fakeKeeper();
    const admission = new WorkspaceAdmission("1", () => 0, limits);
    await admission.admitNewRooms(ann);
    await admission.admitMessages(ann);
    (await admission.admitSearch(ann))();
    expect(asked).toEqual([
      ["id:ann", "create"],
      ["id:ann", "send"],
      ["id:ann", "search"]
    ]);
    // Past this workspace's own burst, the keeper is no longer asked.
    for (let i = 1; i < RATE_LIMITS.restRoomCreate.burst; i++) await admission.admitNewRooms(ann);
    const before = asked.length;
    expect((await refusal(() => admission.admitNewRooms(ann)))?.status).toBe(429);
    expect(asked.length).toBe(before);
  });

  it("refuses with the keeper's 429 and wait, and a refused search holds no place", async () => {
    const keeper = fakeKeeper({ ok: false, retryAfterMs: 2_500 });
    const admission = new WorkspaceAdmission("1", () => 0, keeper.limits);
    const refused = await refusal(() => admission.admitNewRooms(ann));
    expect(refused).toMatchObject({ code: "rate_limited:requests", status: 429, retryAfterSeconds: 3 });
    expect((await refusal(() => admission.admitMessages(ann)))?.status).toBe(429);
    for (let i = 0; i < MAX_SEARCHES_PER_IDENTITY; i++) {
      expect((await refusal(() => admission.admitSearch(ann)))?.status).toBe(429);
    }
    keeper.limits.answer = { ok: true };
    const running = [];
    for (let i = 0; i < MAX_SEARCHES_PER_IDENTITY; i++) running.push(await admission.admitSearch(ann));
    for (const release of running) release();
  });

  it("never asks when RATE_LIMIT_SCALE=0 turns limits off", async () => {
    const { asked, limits } = fakeKeeper({ ok: false, retryAfterMs: 1_000 });
    const admission = new WorkspaceAdmission("0", () => 0, limits);
    await admission.admitNewRooms(ann);
    await admission.admitMessages(ann);
    (await admission.admitSearch(ann))();
    expect(asked).toEqual([]);
  });
});
