/**
 * Token budgets, pure: the defaults from the environment and the check made
 * before a turn calls the model. Usage is counted from what the provider
 * reported (see room/usage-ledger.ts), so a turn is admitted while usage is
 * under budget and may end a little over it; the next one is refused.
 */
import type { StructuredError } from "@/shared/budgets";

/** Defaults when neither the room nor the workspace sets one: unlimited. */
const DEFAULT_ROOM_DAILY_TOKEN_BUDGET = 0;
const DEFAULT_WORKSPACE_DAILY_TOKEN_BUDGET = 0;

type BudgetEnv = { ROOM_DAILY_TOKEN_BUDGET?: string; WORKSPACE_DAILY_TOKEN_BUDGET?: string };

function budgetFrom(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return raw !== undefined && raw.trim() !== "" && Number.isInteger(value) && value >= 0 ? value : fallback;
}

export function budgetDefaults(env: BudgetEnv): { room: number; workspace: number } {
  return {
    room: budgetFrom(env.ROOM_DAILY_TOKEN_BUDGET, DEFAULT_ROOM_DAILY_TOKEN_BUDGET),
    workspace: budgetFrom(env.WORKSPACE_DAILY_TOKEN_BUDGET, DEFAULT_WORKSPACE_DAILY_TOKEN_BUDGET)
  };
}

export interface BudgetState {
  room: { budget: number; used: number };
  workspace: { budget: number; used: number } | null;
}

export type BudgetCode = "budget_exceeded:room" | "budget_exceeded:workspace";

/** The refusal for a turn over budget, or null when it may run. Not retryable until the UTC day turns. */
export function overBudget(state: BudgetState): (StructuredError & { code: BudgetCode }) | null {
  const { room, workspace } = state;
  if (room.budget > 0 && room.used >= room.budget) {
    return {
      code: "budget_exceeded:room",
      message: `This room has used its daily budget of ${room.budget.toLocaleString("en-US")} tokens (${room.used.toLocaleString("en-US")} used today, UTC). Raise it in the room's settings or wait until tomorrow.`,
      retryable: false
    };
  }
  if (workspace && workspace.budget > 0 && workspace.used >= workspace.budget) {
    return {
      code: "budget_exceeded:workspace",
      message: `This workspace has used its daily budget of ${workspace.budget.toLocaleString("en-US")} tokens (${workspace.used.toLocaleString("en-US")} used today, UTC). Raise it in the workspace settings or wait until tomorrow.`,
      retryable: false
    };
  }
  return null;
}
