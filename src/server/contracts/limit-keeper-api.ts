/**
 * What the overseers and rooms ask of LimitKeeper (agents/limit-keeper.ts):
 * one token of an identity's cross-workspace allowance. Declared here, below
 * the class, so env.ts can type the binding without importing it.
 */
import type { LimitKind } from "@/server/domain/access/identity-limits";
import type { Admission } from "@/server/domain/access/rate-limit";

export interface LimitKeeperApi {
  /** One token of `kind` from the identity this keeper is named for. */
  take(kind: LimitKind, count?: number): Admission;
}
