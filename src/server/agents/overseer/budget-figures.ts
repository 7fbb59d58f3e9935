/**
 * The workspace's daily token budget as the overseer answers it to rooms.
 * Rooms keep a copy (domain/budgets/workspace-budget-cache.ts, where the bound on
 * overshoot is argued) refreshed by the answer to each activity report, so
 * a turn does not ask before its model request. This side remembers which
 * rooms hold a copy and voids their copies when a verdict may change: the
 * workspace's total crossing its budget, or the budget being set.
 */
import { budgetDefaults } from "@/server/domain/budgets/token-budgets";
import { BudgetFigureHolders, type WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import type { Env } from "@/server/env";
import type { LiveStatusTable } from "./live-status";
import type { WorkspaceSettingsTable } from "./settings";

/** Tells rooms their copies are void (best effort: a copy also dies of age). */
type VoidCopies = (roomIds: string[], epoch: number) => Promise<void>;

export class WorkspaceBudgetFigures {
  #holders = new BudgetFigureHolders();
  /** The budget setting, read once: it only changes through `setDaily`. */
  #daily: number | null = null;

  constructor(
    private readonly env: Env,
    private readonly settings: WorkspaceSettingsTable,
    private readonly live: LiveStatusTable,
    private readonly voidCopies: VoidCopies
  ) {}

  daily(): number {
    this.#daily ??= this.settings.get("dailyTokenBudget") ?? budgetDefaults(this.env).workspace;
    return this.#daily;
  }

  /** Sets the budget; answers once every room holding a copy has been told to drop it. */
  async setDaily(budget: number): Promise<void> {
    this.settings.set("dailyTokenBudget", budget);
    this.#daily = budget;
    await this.#voidAll();
  }

  /** The figure for a room that asks (and so will hold a copy). */
  figureFor(roomId: string): WorkspaceBudgetFigure {
    return this.#holders.give(roomId, this.daily(), this.live.tokensToday());
  }

  /**
   * Runs `record` (a room's report), then answers that room's figure. If
   * the report took the workspace across its budget, every other copy is
   * voided (in the background: the report itself is fire and forget).
   */
  afterReport(roomId: string, record: () => void, waitUntil: (promise: Promise<unknown>) => void) {
    const before = this.live.tokensToday();
    record();
    const after = this.live.tokensToday();
    if (BudgetFigureHolders.crosses(this.daily(), before, after)) waitUntil(this.#voidAll());
    return this.figureFor(roomId);
  }

  forget(roomId: string) {
    this.#holders.forget(roomId);
  }

  async #voidAll() {
    const { epoch, rooms } = this.#holders.voidCopies();
    if (rooms.length > 0) await this.voidCopies(rooms, epoch);
  }
}
