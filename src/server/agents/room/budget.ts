/**
 * A room's daily token budgets: its own (a room setting, the server default
 * otherwise) and its workspace's, which only the overseer knows. Checked
 * before every turn calls the model; the arithmetic is domain/budgets/token-budgets.ts.
 *
 * The workspace's figure is a copy (domain/budgets/workspace-budget-cache.ts, where
 * the bound on overshoot is argued): the answer to each activity report
 * refreshes it, the overseer voids it when a verdict may change, and a turn
 * asks the overseer before its model request only when the copy is missing,
 * old, or near the limit.
 */

import { budgetDefaults, overBudget } from "@/server/domain/budgets/token-budgets";
import { WorkspaceBudgetCache, type WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import type { Env } from "@/server/env";
import type { StructuredError } from "@/shared/budgets";
import type { BudgetUse } from "@/shared/introspection";
import type { OverseerLink } from "./overseer-link";

/** What the budget needs from its room. */
interface BudgetHost {
  env: Env;
  /** The room's own budget setting (null: the server's default). */
  dailyTokenBudget(): number | null | undefined;
  /** Tokens the room used today (room/usage-ledger.ts). */
  usedToday(): number;
  /** The room's name, which the overseer knows it by. */
  roomId(): string;
  overseer: OverseerLink;
}

export class RoomBudget {
  #workspace = new WorkspaceBudgetCache();

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
    const known = this.#workspace.verdict(room.usedToday);
    const workspace = known.ask ? await this.workspace() : { daily: known.budget, usedToday: known.used };
    if (!workspace) return null;
    return overBudget({
      room: { budget: 0, used: 0 },
      workspace: { budget: workspace.daily, used: workspace.usedToday }
    });
  }

  /** The workspace's budget and its use today, asked of the overseer now; null when it cannot be asked. */
  async workspace(): Promise<BudgetUse | null> {
    if (!this.host.overseer.present) return null;
    const ownUsed = this.host.usedToday();
    try {
      const figure = await this.host.overseer.call((overseer) => overseer.workspaceBudget(this.host.roomId()));
      if (!figure) return null;
      this.#workspace.learn(figure, ownUsed);
      return { daily: figure.dailyTokenBudget, usedToday: figure.tokensToday };
    } catch (error) {
      // The overseer is unreachable: the room's own budget still holds.
      console.warn("[ChatRoom] workspace budget unknown:", error);
      return null;
    }
  }

  /** The overseer's answer to an activity report, which counted `ownUsed` of this room's tokens. */
  learn(figure: WorkspaceBudgetFigure | undefined | null, ownUsed: number) {
    if (figure) this.#workspace.learn(figure, ownUsed);
  }

  /** The overseer's notice that the copy may be wrong (the workspace crossed its budget, or it changed). */
  void(epoch: number) {
    this.#workspace.void(epoch);
  }
}
