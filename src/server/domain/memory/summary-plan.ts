/**
 * When a room writes a summary, of what, and when it folds summaries into
 * one: the arithmetic of the room's memory, apart from storage and models.
 *
 * A summary stands in, in the model's context, for a span of messages that
 * left the window (the messages stay in history). One is due once the
 * unsummarised part of what left the window passes a threshold, so a full
 * room writes one now and then, not on every turn. When the summaries in
 * use outgrow their budget, the oldest are summarised again into one of the
 * next level: a very long room keeps a bounded memory. Pure.
 */

/** How a room's context token budget is shared out to its memory. */
export interface MemoryBudgets {
  /** Tokens of pins in a context. */
  pins: number;
  /** Tokens of summaries in a context; past it, the oldest are merged. */
  summaries: number;
  /** Unsummarised tokens that left the window before a summary is written. */
  trigger: number;
  /** Output budget of one summary (the model is asked for at most this). */
  summaryTokens: number;
  /** Input budget of one summary request: a longer span is summarised in parts. */
  inputTokens: number;
}

export function memoryBudgets(contextTokenBudget: number): MemoryBudgets {
  const b = Math.max(1_000, contextTokenBudget);
  const summaryTokens = Math.min(1_000, Math.max(100, Math.floor(b / 16)));
  return {
    pins: Math.floor(b / 10),
    // Room for at least three summaries of full size, so merging is not constant.
    summaries: Math.max(Math.floor(b / 5), summaryTokens * 3),
    trigger: Math.floor(b / 8),
    summaryTokens,
    inputTokens: Math.max(1_000, Math.floor(b * 0.75))
  };
}

/** A message as the planner sees it: its id and estimated tokens, never its content. */
export interface SpanRow {
  id: string;
  tokens: number;
}

export type Backlog =
  /** The messages that left the window and no summary covers, known from the turn's own history. */
  | { known: true; messages: number; tokens: number }
  /** The coverage ends before the turn's history starts (a room just woken, imported or forked). */
  | { known: false };

export interface BacklogInput {
  /** What the turn's window left out, oldest first (in-memory history only). */
  dropped: readonly SpanRow[];
  /** Ids in the turn's window. */
  window: ReadonlySet<string>;
  /** The last message the summaries in use cover, or null when there are none. */
  coveredUpTo: string | null;
  /** The first message the summary job found uncovered, when it looked (it walks storage). */
  firstUnsummarised?: string | null;
  /** The turn's history begins with the room's first message. */
  historyStartsAtRoot: boolean;
}

/**
 * What left the window unsummarised. Reads only the in-memory history the
 * turn already holds (ids, and sizes of what was dropped), however large
 * the room is; `known: false` when the answer lies in storage.
 */
export function backlogOf(input: BacklogInput): Backlog {
  const { dropped, window } = input;
  const from = (index: number): Backlog => {
    let tokens = 0;
    for (let i = index; i < dropped.length; i++) tokens += dropped[i].tokens;
    return { known: true, messages: dropped.length - index, tokens };
  };
  const none: Backlog = { known: true, messages: 0, tokens: 0 };
  if (input.coveredUpTo !== null) {
    if (window.has(input.coveredUpTo)) return none;
    const k = dropped.findIndex((row) => row.id === input.coveredUpTo);
    if (k >= 0) return from(k + 1);
  }
  if (input.firstUnsummarised) {
    if (window.has(input.firstUnsummarised)) return none;
    const k = dropped.findIndex((row) => row.id === input.firstUnsummarised);
    if (k >= 0) return from(k);
  }
  if (input.coveredUpTo === null && input.historyStartsAtRoot) return from(0);
  return { known: false };
}

/**
 * A span cut into parts of at most `maxTokens` each, oldest first, every
 * message in exactly one part. A message larger than the budget is a part
 * of its own (its text is shortened when rendered, and the summary says so).
 */
export function chunkSpan<T extends SpanRow>(rows: readonly T[], maxTokens: number): T[][] {
  const parts: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const row of rows) {
    if (current.length > 0 && used + row.tokens > maxTokens) {
      parts.push(current);
      current = [];
      used = 0;
    }
    current.push(row);
    used += row.tokens;
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

export interface ActiveSummary {
  id: string;
  tokens: number;
  level: number;
}

/**
 * The summaries to fold into one of the next level, oldest first, or null
 * when those in use fit their budget. Folds the oldest run that fits one
 * request's input budget (at least two), so every fold frees room.
 */
export function planMerge(active: readonly ActiveSummary[], budgets: MemoryBudgets): ActiveSummary[] | null {
  if (active.length < 2) return null;
  const total = active.reduce((sum, s) => sum + s.tokens, 0);
  if (total <= budgets.summaries) return null;
  const run: ActiveSummary[] = [];
  let used = 0;
  // Never fold the newest: it leads into the window and has the freshest detail.
  for (const summary of active.slice(0, -1)) {
    if (run.length >= 2 && used + summary.tokens > budgets.inputTokens) break;
    run.push(summary);
    used += summary.tokens;
  }
  return run.length >= 2 ? run : null;
}
