/**
 * How overseers and rooms reach an identity's LimitKeeper
 * (agents/limit-keeper.ts): one keeper per identity key, typed by its
 * contract, never by its class. With RATE_LIMIT_SCALE=0 nobody is asked.
 *
 * A keeper that cannot be reached admits: the caller's per-workspace limits
 * have already passed, and an outage of the cross-workspace check should
 * not stop every workspace from working.
 */
import type { LimitKeeperApi } from "@/server/contracts/limit-keeper-api";
import { type IdentityLimits, NO_IDENTITY_LIMITS } from "@/server/domain/access/identity-limits";
import { rateScaleFrom } from "@/server/domain/access/rate-limit";
import { logError } from "@/server/log";

interface KeeperBinding {
  LimitKeeper: DurableObjectNamespace<LimitKeeperApi & Rpc.DurableObjectBranded>;
  RATE_LIMIT_SCALE?: string;
}

export function identityLimits(env: KeeperBinding): IdentityLimits {
  if (rateScaleFrom(env.RATE_LIMIT_SCALE) === 0) return NO_IDENTITY_LIMITS;
  const keepers = env.LimitKeeper;
  return {
    async take(identityKey, kind, count = 1) {
      try {
        return await keepers.get(keepers.idFromName(identityKey)).take(kind, count);
      } catch (error) {
        logError("identity limits", error);
        return { ok: true };
      }
    }
  };
}
