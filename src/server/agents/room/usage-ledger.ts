/**
 * Tokens a room used per UTC day, as the provider reported them: what
 * budgets are checked against and what the room reports to its overseer.
 * One row per day; days older than a week are dropped.
 *
 * Every turn asks for today's total (the budget check, the live report), so
 * it is kept in memory: this ledger is the only writer of its table, and each
 * write returns the day's new total, so the copy is exact without a read.
 */

import { utcDay } from "@/server/domain/rooms/workspace-status";
import type { TokenUsage } from "@/shared/protocol";

const KEEP_DAYS = 7;

export class UsageLedger {
  /** Today's total as last read or written (null: not read in this life). */
  #today: { day: string; total: number } | null = null;
  /** The cutoff the last prune used: days before it are gone until the day changes. */
  #prunedBefore: string | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS rooms_usage_daily (
      day TEXT PRIMARY KEY,
      input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL,
      total_tokens INTEGER NOT NULL
    )`);
  }

  add(usage: TokenUsage, now = Date.now()) {
    if (usage.totalTokens <= 0 && usage.inputTokens <= 0 && usage.outputTokens <= 0) return;
    const day = utcDay(now);
    const [row] = this.sql
      .exec<{ total_tokens: number }>(
        `INSERT INTO rooms_usage_daily (day, input_tokens, output_tokens, total_tokens) VALUES (?, ?, ?, ?)
         ON CONFLICT (day) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens,
           output_tokens = output_tokens + excluded.output_tokens, total_tokens = total_tokens + excluded.total_tokens
         RETURNING total_tokens`,
        day,
        usage.inputTokens,
        usage.outputTokens,
        usage.totalTokens
      )
      .toArray();
    this.#today = row ? { day, total: row.total_tokens } : null;
    // Rows are only ever written for the day of `now`, so one prune per cutoff is enough.
    const cutoff = utcDay(now - KEEP_DAYS * 86_400_000);
    if (cutoff !== this.#prunedBefore) {
      this.sql.exec("DELETE FROM rooms_usage_daily WHERE day < ?", cutoff);
      this.#prunedBefore = cutoff;
    }
  }

  today(now = Date.now()): number {
    const day = utcDay(now);
    if (this.#today?.day === day) return this.#today.total;
    const row = this.sql
      .exec<{ total_tokens: number }>("SELECT total_tokens FROM rooms_usage_daily WHERE day = ?", day)
      .toArray()[0];
    const total = row?.total_tokens ?? 0;
    this.#today = { day, total };
    return total;
  }
}
