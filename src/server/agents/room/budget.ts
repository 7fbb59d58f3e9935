/**
 * A room's daily token budgets: its own (a room setting, the server default
 * otherwise) and its workspace's, which only the overseer knows. Checked
 * before every turn calls the model; the arithmetic is domain/budgets.ts.
 */
import { getAgentByName } from "agents";
import type { StructuredError } from "../../../shared/budgets";
import type { BudgetUse } from "../../../shared/introspection";
import { budgetDefaults, overBudget } from "../../domain/budgets";
import type { Env } from "../../env";

/** What the budget needs from its room. */
interface BudgetHost {
  env: Env;
  /** The room's own budget setting (null: the server's default). */
  dailyTokenBudget(): number | null | undefined;
  /** Tokens the room used today (room/usage-ledger.ts). */
  usedToday(): number;
  /** The overseer's instance name, or undefined when the room is not a facet. */
  overseerName(): string | undefined;
}

export class RoomBudget {
  constructor(private readonly host: BudgetHost) {}

  /** The room's own budget and its use today. */
  room(): BudgetUse {
    return {
      daily: this.host.dailyTokenBudget() ?? budgetDefaults(this.host.env).room,
      usedToday: this.host.usedToday()
    };
  }

  /** The turn's budget check, before any model call: the room's own day, then its workspace's. */
  async refusal(): Promise<StructuredError | null> {
    const room = this.room();
    const local = overBudget({ room: { budget: room.daily, used: room.usedToday }, workspace: null });
    if (local) return local;
    const workspace = await this.workspace();
    if (!workspace) return null;
    return overBudget({
      room: { budget: 0, used: 0 },
      workspace: { budget: workspace.daily, used: workspace.usedToday }
    });
  }

  /** The workspace's budget and its use today, as the overseer knows them; null when it cannot be asked. */
  async workspace(): Promise<BudgetUse | null> {
    const overseerName = this.host.overseerName();
    if (!overseerName) return null;
    try {
      const overseer = await getAgentByName(this.host.env.OverseerAgent, overseerName);
      const workspace = await overseer.workspaceBudget();
      return { daily: workspace.dailyTokenBudget, usedToday: workspace.tokensToday };
    } catch (error) {
      // The overseer is unreachable: the room's own budget still holds.
      console.warn("[ChatRoom] workspace budget unknown:", error);
      return null;
    }
  }
}
