/**
 * The room's memory tables: pins, summaries and the record of what each
 * answer's context held. Our own tables, not the agents SDK's compaction
 * overlays: an overlay in the session AIChatAgent writes to replaces the
 * span in every read of that session (history pages, versions, exports, the
 * framework's hydration of `this.messages` that every client receives), so
 * people would see a summary where their messages were. Here a summary
 * stands in for its span in the model's context only; message rows are never
 * read for writing, let alone changed.
 *
 * Reads a turn needs (pins, the summaries in use) are cached in memory and
 * dropped on every write here, so a turn reads no memory table at all.
 */

import { estimateTokens } from "@/server/domain/turns/context-budget";
import type { MessageAuthor } from "@/shared/identity";
import type { ContextRecord, Pin, Summary } from "@/shared/memory";

type PinRow = {
  id: string;
  text: string;
  message_id: string | null;
  author: string;
  created_at: number;
  updated_at: number;
  updated_by: string | null;
  status: string;
  truncated: number;
};

export type SummaryRow = {
  id: string;
  generation: number;
  level: number;
  from_id: string;
  to_id: string;
  from_seq: number;
  to_seq: number;
  message_count: number;
  text: string;
  tokens: number;
  model: string;
  truncated: number;
  created_at: number;
  merged_into: string | null;
};

export type NewSummary = Omit<SummaryRow, "id" | "created_at" | "merged_into" | "tokens">;

/** Marks a summary left behind by an edit: its span is no longer on the room's path. */
export const OFF_BRANCH = "off-branch";

export class MemoryStore {
  #pins: Pin[] | null = null;
  #active: SummaryRow[] | null = null;
  #generation: number | null = null;

  constructor(private readonly sql: SqlStorage) {
    this.#createTables();
  }

  #createTables() {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS memory_pins (
      id TEXT PRIMARY KEY, text TEXT NOT NULL, message_id TEXT, author TEXT NOT NULL,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, updated_by TEXT,
      status TEXT NOT NULL, truncated INTEGER NOT NULL DEFAULT 0)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS memory_summaries (
      id TEXT PRIMARY KEY, generation INTEGER NOT NULL, level INTEGER NOT NULL,
      from_id TEXT NOT NULL, to_id TEXT NOT NULL, from_seq INTEGER NOT NULL, to_seq INTEGER NOT NULL,
      message_count INTEGER NOT NULL, text TEXT NOT NULL, tokens INTEGER NOT NULL, model TEXT NOT NULL,
      truncated INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, merged_into TEXT)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS memory_context (
      trace_id TEXT NOT NULL, speaker TEXT NOT NULL, created_at INTEGER NOT NULL, record TEXT NOT NULL,
      PRIMARY KEY (trace_id, speaker))`);
    // The newest record says where the window last started (read once per wake, by the summary job).
    this.sql.exec(`CREATE INDEX IF NOT EXISTS memory_context_created ON memory_context (created_at)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  }

  // ── Pins ──

  pins(): Pin[] {
    this.#pins ??= this.sql.exec<PinRow>(`SELECT * FROM memory_pins ORDER BY created_at, id`).toArray().map(toPin);
    return this.#pins;
  }

  pin(id: string): Pin | null {
    return this.pins().find((p) => p.id === id) ?? null;
  }

  addPin(pin: Omit<Pin, "id" | "updatedAt" | "updatedBy">): Pin {
    const id = crypto.randomUUID();
    this.sql.exec(
      `INSERT INTO memory_pins (id, text, message_id, author, created_at, updated_at, updated_by, status, truncated)
       VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
      id,
      pin.text,
      pin.messageId,
      JSON.stringify(pin.author),
      pin.createdAt,
      pin.createdAt,
      pin.status,
      pin.truncated ? 1 : 0
    );
    this.#pins = null;
    return this.pin(id) as Pin;
  }

  updatePin(id: string, change: { text?: string; accept?: MessageAuthor }, by: MessageAuthor, now: number): Pin {
    const current = this.pin(id);
    if (!current) throw new Error(`no pin ${id}`);
    const text = change.text ?? current.text;
    const truncated = change.text !== undefined ? 0 : current.truncated ? 1 : 0;
    if (change.accept) {
      // Accepting makes the member who accepted it the pin's author: a person, not the model, keeps it.
      this.sql.exec(
        `UPDATE memory_pins SET text = ?, truncated = ?, status = 'active', author = ?, updated_at = ? WHERE id = ?`,
        text,
        truncated,
        JSON.stringify(change.accept),
        now,
        id
      );
    } else {
      this.sql.exec(
        `UPDATE memory_pins SET text = ?, truncated = ?, updated_at = ?, updated_by = ? WHERE id = ?`,
        text,
        truncated,
        now,
        JSON.stringify(by),
        id
      );
    }
    this.#pins = null;
    return this.pin(id) as Pin;
  }

  deletePin(id: string): boolean {
    const deleted = this.sql.exec(`DELETE FROM memory_pins WHERE id = ?`, id).rowsWritten > 0;
    this.#pins = null;
    return deleted;
  }

  // ── Summaries ──

  /** The generation turns read; a rebuild writes the next one and flips to it when done. */
  generation(): number {
    if (this.#generation === null) {
      const row = this.sql
        .exec<{ value: string }>(`SELECT value FROM memory_meta WHERE key = 'generation'`)
        .toArray()[0];
      this.#generation = row ? Number(row.value) : 0;
    }
    return this.#generation;
  }

  setGeneration(generation: number) {
    this.sql.exec(
      `INSERT INTO memory_meta (key, value) VALUES ('generation', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      String(generation)
    );
    this.#generation = generation;
    this.#active = null;
  }

  /** The summaries in use in a generation (default: the one turns read), oldest span first. */
  active(generation = this.generation()): SummaryRow[] {
    if (generation !== this.generation()) return this.#readActive(generation);
    this.#active ??= this.#readActive(generation);
    return this.#active;
  }

  #readActive(generation: number): SummaryRow[] {
    return this.sql
      .exec<SummaryRow>(
        `SELECT * FROM memory_summaries WHERE generation = ? AND merged_into IS NULL ORDER BY to_seq, level`,
        generation
      )
      .toArray();
  }

  summary(id: string): SummaryRow | null {
    return this.sql.exec<SummaryRow>(`SELECT * FROM memory_summaries WHERE id = ?`, id).toArray()[0] ?? null;
  }

  /** Writes a summary; with `replaces`, marks those as folded into it, in the same transaction. */
  addSummary(summary: NewSummary, now: number, replaces: readonly string[] = []): SummaryRow {
    const id = crypto.randomUUID();
    this.sql.exec(
      `INSERT INTO memory_summaries (id, generation, level, from_id, to_id, from_seq, to_seq, message_count,
         text, tokens, model, truncated, created_at, merged_into)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
      id,
      summary.generation,
      summary.level,
      summary.from_id,
      summary.to_id,
      summary.from_seq,
      summary.to_seq,
      summary.message_count,
      summary.text,
      estimateTokens(summary.text),
      summary.model,
      summary.truncated,
      now
    );
    for (const old of replaces) this.sql.exec(`UPDATE memory_summaries SET merged_into = ? WHERE id = ?`, id, old);
    this.#active = null;
    return this.summary(id) as SummaryRow;
  }

  /** Takes summaries out of use (kept: records of earlier answers still name them). */
  retire(ids: readonly string[], reason: string) {
    for (const id of ids) this.sql.exec(`UPDATE memory_summaries SET merged_into = ? WHERE id = ?`, reason, id);
    this.#active = null;
  }

  // ── What each answer saw ──

  record(traceId: string, speaker: string, record: ContextRecord, now: number) {
    this.sql.exec(
      `INSERT OR REPLACE INTO memory_context (trace_id, speaker, created_at, record) VALUES (?, ?, ?, ?)`,
      traceId,
      speaker,
      now,
      JSON.stringify(record)
    );
  }

  recordOf(traceId: string, speaker: string): { record: ContextRecord; createdAt: number } | null {
    const row = this.sql
      .exec<{ record: string; created_at: number }>(
        `SELECT record, created_at FROM memory_context WHERE trace_id = ? AND speaker = ?`,
        traceId,
        speaker
      )
      .toArray()[0];
    return row ? { record: JSON.parse(row.record) as ContextRecord, createdAt: row.created_at } : null;
  }
}

export function toSummary(row: SummaryRow): Summary {
  return {
    id: row.id,
    fromMessageId: row.from_id,
    toMessageId: row.to_id,
    messageCount: row.message_count,
    level: row.level,
    text: row.text,
    tokens: row.tokens,
    model: row.model,
    truncated: row.truncated === 1,
    createdAt: row.created_at
  };
}

function toPin(row: PinRow): Pin {
  return {
    id: row.id,
    text: row.text,
    messageId: row.message_id,
    author: JSON.parse(row.author) as MessageAuthor,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by ? (JSON.parse(row.updated_by) as MessageAuthor) : null,
    status: row.status === "proposed" ? "proposed" : "active",
    truncated: row.truncated === 1
  };
}
