/**
 * A room's copy of its workspace's daily token budget, so a turn does not
 * ask the overseer before every model request (pure; the room keeps one in
 * room/budget.ts, the overseer keeps the other half in
 * overseer/budget-figures.ts).
 *
 * Why: the workspace's budget and today's total live at the overseer. Asking
 * for them before each turn was a `getAgentByName` (one RPC to make sure the
 * overseer is initialised) plus a `workspaceBudget` RPC, both on the
 * workspace's one thread, on the path from a send to the model request.
 *
 * How the copy stays current: every activity report a room sends (coalesced,
 * at least once per turn) is answered with the workspace's figure; a room
 * with no figure, or one too old, asks before its turn, as it always did.
 *
 * The bound on overshoot, and why it is safe. The overseer's own total was
 * never exact: rooms report their usage after their turns, coalesced, so any
 * number of turns already admitted may end over the budget ("a turn admitted
 * under budget may end a little over it"). The copy adds nothing to that,
 * because a room admits a turn on its copy without asking only while all of
 * these hold:
 * - the figure is at most FIGURE_MAX_AGE_MS old (by the overseer's clock,
 *   which is the room's: facets run in their parent's process) and of
 *   today (UTC);
 * - the workspace's budget is unlimited, or the figure, plus what this room
 *   used since, leaves more than NEAR_LIMIT_SHARE of the budget. Nearer the
 *   limit the room asks before every turn, exactly as before;
 * - the overseer has not since told the room its figure is void. It does so
 *   whenever the verdict can change: the workspace's total reaching its
 *   budget, or a change to the budget. It tells every room it gave a figure
 *   to within FIGURE_MAX_AGE_MS (+ slack), so every room holding a copy
 *   hears of it; a figure computed before that notice is never taken after
 *   it (figures carry the overseer's epoch).
 * So once the overseer knows the workspace is over its budget, every room
 * refuses from its next turn on (the notice's delivery is the only lag); if
 * a notice is lost, a room's copy dies within FIGURE_MAX_AGE_MS anyway.
 */

/** How long a room admits turns on a figure without asking again. */
export const FIGURE_MAX_AGE_MS = 5_000;
/** How long the overseer remembers it gave a room a figure (the copy's life, plus slack). */
export const FIGURE_HOLDER_WINDOW_MS = FIGURE_MAX_AGE_MS + 1_000;
/** Within this share of the budget from the limit, a room asks before every turn. */
const NEAR_LIMIT_SHARE = 0.1;

/** The workspace's budget as the overseer tells it. */
export interface WorkspaceBudgetFigure {
  /** Tokens per UTC day; 0: unlimited. */
  dailyTokenBudget: number;
  /** What the workspace's rooms reported using today. */
  tokensToday: number;
  /** The overseer's `Date.now()` when it answered. */
  at: number;
  /** The overseer's budget epoch: raised whenever a verdict may change (see WorkspaceBudgetCache.void). */
  epoch: number;
}

export type WorkspaceBudgetVerdict =
  | { ask: true; why: "missing" | "stale" | "new_day" | "near_limit" }
  | { ask: false; budget: number; used: number };

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** The room's half: a copy of the figure, and when it must ask instead. */
export class WorkspaceBudgetCache {
  #held: { figure: WorkspaceBudgetFigure; ownAt: number } | null = null;
  #minEpoch = Number.NEGATIVE_INFINITY;

  /**
   * A figure the overseer answered. `ownUsed`: this room's use today when
   * it sent the report or question the figure answers (the figure counts at
   * most that much of this room's use; what the room uses after is added).
   * A figure older than one already held, or than a notice, is dropped.
   */
  learn(figure: WorkspaceBudgetFigure, ownUsed: number) {
    if (figure.epoch < this.#minEpoch) return;
    const held = this.#held?.figure;
    if (held && (held.epoch > figure.epoch || (held.epoch === figure.epoch && held.at > figure.at))) return;
    this.#held = { figure, ownAt: ownUsed };
  }

  /** The overseer's notice: the figure may be wrong now; take none computed before `epoch`. */
  void(epoch: number) {
    this.#minEpoch = Math.max(this.#minEpoch, epoch);
    if (this.#held && this.#held.figure.epoch < this.#minEpoch) this.#held = null;
  }

  /** The figure held, if any (introspection shows it). */
  get figure(): WorkspaceBudgetFigure | null {
    return this.#held?.figure ?? null;
  }

  /**
   * Whether a turn may be judged on the copy, and on what figures; or why
   * the room must ask the overseer first. `ownUsed`: the room's use today.
   */
  verdict(ownUsed: number, now = Date.now()): WorkspaceBudgetVerdict {
    const held = this.#held;
    if (!held) return { ask: true, why: "missing" };
    const { figure, ownAt } = held;
    if (dayOf(figure.at) !== dayOf(now)) return { ask: true, why: "new_day" };
    if (now - figure.at > FIGURE_MAX_AGE_MS || now < figure.at) return { ask: true, why: "stale" };
    const budget = figure.dailyTokenBudget;
    const used = figure.tokensToday + Math.max(0, ownUsed - ownAt);
    if (budget > 0 && budget - used <= budget * NEAR_LIMIT_SHARE) return { ask: true, why: "near_limit" };
    return { ask: false, budget, used };
  }
}

/**
 * The overseer's half: its epoch, which rooms hold a copy, and when a
 * change of total or budget voids their copies.
 */
export class BudgetFigureHolders {
  /** Starts at the clock, so an overseer that restarted never hands out an epoch below an earlier notice. */
  #epoch: number;
  #givenAt = new Map<string, number>();

  constructor(now = Date.now()) {
    this.#epoch = now;
  }

  /** The figure to answer a room with; remembers the room holds one. */
  give(roomId: string, dailyTokenBudget: number, tokensToday: number, now = Date.now()): WorkspaceBudgetFigure {
    this.#givenAt.set(roomId, now);
    return { dailyTokenBudget, tokensToday, at: now, epoch: this.#epoch };
  }

  forget(roomId: string) {
    this.#givenAt.delete(roomId);
  }

  /**
   * Whether going from `before` to `after` tokens today may change a
   * room's verdict: only crossing the budget does (below it, rooms near the
   * limit ask anyway).
   */
  static crosses(budget: number, before: number, after: number): boolean {
    return budget > 0 && before < budget !== after < budget;
  }

  /**
   * A verdict may have changed: raise the epoch and answer the rooms to
   * tell, with the notice's epoch. Rooms given a figure longer ago than its
   * life are dropped: their copies died already.
   */
  voidCopies(now = Date.now()): { epoch: number; rooms: string[] } {
    this.#epoch = Math.max(this.#epoch + 1, now);
    const rooms: string[] = [];
    for (const [roomId, at] of this.#givenAt) {
      if (now - at > FIGURE_HOLDER_WINDOW_MS) this.#givenAt.delete(roomId);
      else rooms.push(roomId);
    }
    this.#givenAt.clear();
    return { epoch: this.#epoch, rooms };
  }
}
