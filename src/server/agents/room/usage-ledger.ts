/**
 * Tokens a room used per UTC day, as the provider reported them: what
 * budgets are checked against and what the room reports to its overseer.
 * One row per day; days older than a week are dropped.
 */
import type { TokenUsage } from "../../../shared/protocol";
import { utcDay } from "../../domain/introspection";

const KEEP_DAYS = 7;

export class UsageLedger {
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
    this.sql.exec(
      `INSERT INTO rooms_usage_daily (day, input_tokens, output_tokens, total_tokens) VALUES (?, ?, ?, ?)
       ON CONFLICT (day) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens, total_tokens = total_tokens + excluded.total_tokens`,
      day,
      usage.inputTokens,
      usage.outputTokens,
      usage.totalTokens
    );
    this.sql.exec("DELETE FROM rooms_usage_daily WHERE day < ?", utcDay(now - KEEP_DAYS * 86_400_000));
  }

  today(now = Date.now()): number {
    const row = this.sql
      .exec<{ total_tokens: number }>("SELECT total_tokens FROM rooms_usage_daily WHERE day = ?", utcDay(now))
      .toArray()[0];
    return row?.total_tokens ?? 0;
  }
}
