/**
 * Writes the room's summaries in the background. A turn only notes where
 * its window started and, when a summary is due, starts this job without
 * waiting for it: turns run while it writes (the model call is I/O, and the
 * job holds nothing a turn needs).
 *
 * The job walks the room's path from just before the window back to the
 * end of the last summary, by id (the stamped `token_estimate` column only,
 * never content), cuts that span into parts the summariser can read, loads
 * each part's messages by id and writes one summary per part, oldest first,
 * so progress survives an eviction. Then, while the summaries in use
 * outgrow their budget, it folds the oldest into one of the next level.
 * A summary whose span an edit took off the room's path is retired.
 * A rebuild (the owner's, e.g. after a model change) writes a whole new
 * generation from the room's first message and switches to it when done;
 * the old one stays in use until then.
 */
import type { Session } from "agents/sessions";
import type { UIMessage } from "ai";
import { chunkSpan, type MemoryBudgets, planMerge } from "@/server/domain/memory/summary-plan";
import type { TokenUsage } from "@/shared/protocol";
import { type MemoryStore, OFF_BRANCH, type SummaryRow } from "./memory-store";

/** What the room's model (or, offline, the extract) wrote for one request. */
export interface WrittenSummary {
  text: string;
  model: string;
  truncated: boolean;
  usage?: TokenUsage;
}

export type SummariseInput = { kind: "span"; messages: UIMessage[] } | { kind: "merge"; texts: string[] };

export interface SummaryWriterHost {
  sql: SqlStorage;
  session: () => Session;
  store: MemoryStore;
  budgets: () => MemoryBudgets;
  summarise: (input: SummariseInput) => Promise<WrittenSummary>;
  /** Whether a message is on the room's path among the messages held in memory (the newest ones). */
  inMemory: (messageId: string) => boolean;
  /** Held while the job runs (in a facet it is routed through the root's alarm). */
  keepAlive: () => Promise<() => void>;
  /** A summary was written or retired, or a rebuild switched generations. */
  changed: () => void;
  /** The backlog before the newest window is all summarised now. */
  caughtUp: () => void;
  charge: (usage: TokenUsage) => void;
}

type PathRow = {
  id: string;
  tokens: number;
  parent_id: string | null;
  seq: number;
  type: string;
};

/** Ids read per step of a path walk (a recursive query over ids and sizes only). */
const WALK_SEGMENT = 2_000;

export class SummaryWriter {
  /** Where the newest turn's window started; the job summarises what lies before it. */
  #windowStart: string | null = null;
  /** The first message no summary covers, when known (see domain/memory/summary-plan.ts `backlogOf`). */
  firstUnsummarised: string | null | undefined = undefined;
  /**
   * The window start the job last walked back from. A room whose newest
   * messages fit the context drops nothing, so the backlog before its window
   * is not known from the turn; it only changes when the window's start
   * moves (the in-memory transcript is cut back every few messages), so the
   * job walks again only then, not on every turn.
   */
  walkedFrom: string | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #rebuild: { startedAt: number; written: number } | null = null;
  #rebuildRequested = false;

  constructor(private readonly host: SummaryWriterHost) {}

  get rebuilding(): { startedAt: number; written: number } | null {
    return this.#rebuild;
  }

  /** The job's promise while it runs (tests and the bench wait on it; turns never do). */
  get running(): Promise<void> | null {
    return this.#running;
  }

  /** Notes a turn's window start; the next job run reads the newest. */
  windowStartedAt(messageId: string | null) {
    this.#windowStart = messageId;
  }

  /** Starts the job if it is not running (and runs it once more after, if it is). Never awaited by a turn. */
  start(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  rebuild(): { startedAt: number } {
    const startedAt = this.#rebuild?.startedAt ?? Date.now();
    this.#rebuildRequested = true;
    void this.start();
    return { startedAt };
  }

  async #loop() {
    const release = await this.host.keepAlive();
    try {
      do {
        this.#again = false;
        if (this.#rebuildRequested) {
          this.#rebuildRequested = false;
          await this.#runRebuild();
        }
        await this.#summariseBacklog(this.host.store.generation(), false);
        await this.#mergeWhileOver(this.host.store.generation());
      } while (this.#again || this.#rebuildRequested);
    } catch (error) {
      // The next turn starts the job again; nothing was half-written (each summary is one transaction).
      console.warn("[memory] summary job failed:", error instanceof Error ? error.message : String(error));
    } finally {
      release();
    }
  }

  async #runRebuild() {
    const store = this.host.store;
    const next = this.#maxGeneration() + 1;
    this.#rebuild = { startedAt: Date.now(), written: 0 };
    try {
      await this.#summariseBacklog(next, true);
      await this.#mergeWhileOver(next);
      store.setGeneration(next);
      this.firstUnsummarised = undefined;
      this.host.changed();
    } finally {
      this.#rebuild = null;
    }
  }

  #maxGeneration(): number {
    const row = this.host.sql
      .exec<{ g: number | null }>(`SELECT MAX(generation) AS g FROM memory_summaries`)
      .toArray()[0];
    return Math.max(row?.g ?? 0, this.host.store.generation());
  }

  /**
   * Summarises what lies between the last summary of `generation` and the
   * newest window. Outside a rebuild only when it reaches the trigger, so a
   * full room writes a summary now and then, not every turn.
   */
  async #summariseBacklog(generation: number, all: boolean) {
    const start = this.#windowStart ?? this.#lastRecordedWindowStart();
    if (!start) return;
    this.walkedFrom = start;
    const parent = this.#row(start)?.parent_id ?? null;
    if (!parent) {
      this.firstUnsummarised = start;
      return;
    }
    const active = all ? [] : this.host.store.active(generation);
    const span = this.#walkBack(parent, active);
    const tokens = span.reduce((sum, row) => sum + row.tokens, 0);
    if (!all && tokens < this.host.budgets().trigger) {
      this.firstUnsummarised = span[0]?.id ?? start;
      return;
    }
    for (const part of chunkSpan(span, this.host.budgets().inputTokens)) {
      const messages = await this.#load(part);
      if (messages.length === 0) continue;
      const written = await this.host.summarise({ kind: "span", messages });
      if (written.usage) this.host.charge(written.usage);
      const first = part[0];
      const last = part[part.length - 1];
      this.host.store.addSummary(
        {
          generation,
          level: 0,
          from_id: first.id,
          to_id: last.id,
          from_seq: first.seq,
          to_seq: last.seq,
          message_count: part.length,
          text: written.text,
          model: written.model,
          truncated: written.truncated ? 1 : 0
        },
        Date.now()
      );
      if (this.#rebuild) this.#rebuild.written++;
      else this.host.changed();
    }
    this.firstUnsummarised = start;
    if (!all) this.host.caughtUp();
  }

  /** Folds the oldest summaries into one of the next level while those in use exceed their budget. */
  async #mergeWhileOver(generation: number) {
    const store = this.host.store;
    for (;;) {
      const active = store.active(generation);
      const run = planMerge(active, this.host.budgets());
      if (!run) return;
      const rows = run.map((s) => active.find((a) => a.id === s.id) as SummaryRow);
      const written = await this.host.summarise({ kind: "merge", texts: rows.map((r) => r.text) });
      if (written.usage) this.host.charge(written.usage);
      const first = rows[0];
      const last = rows[rows.length - 1];
      store.addSummary(
        {
          generation,
          level: Math.max(...rows.map((r) => r.level)) + 1,
          from_id: first.from_id,
          to_id: last.to_id,
          from_seq: first.from_seq,
          to_seq: last.to_seq,
          message_count: rows.reduce((sum, r) => sum + r.message_count, 0),
          text: written.text,
          model: written.model,
          truncated: written.truncated ? 1 : 0
        },
        Date.now(),
        rows.map((r) => r.id)
      );
      if (this.#rebuild) this.#rebuild.written++;
      else this.host.changed();
    }
  }

  /**
   * The path from `fromId` back to the newest summary in use that is on it
   * (exclusive), oldest first. Summaries past that one are off the path (an
   * edit branched before their end) and are retired.
   */
  #walkBack(fromId: string, active: readonly SummaryRow[]): PathRow[] {
    const stops = new Set(active.map((s) => s.to_id));
    const rows: PathRow[] = [];
    let cursor: string | null = fromId;
    let stoppedAt: string | null = null;
    while (cursor) {
      const segment = this.#segment(cursor, [...stops]);
      const last = segment.at(-1);
      if (!last) break;
      if (stops.has(last.id)) {
        stoppedAt = last.id;
        rows.push(...segment.slice(0, -1));
        break;
      }
      rows.push(...segment);
      cursor = segment.length < WALK_SEGMENT ? null : last.parent_id;
    }
    const stop = active.find((s) => s.to_id === stoppedAt);
    // Not met on the way back, yet on the path: a summary reaching past the
    // window's start (the window grew, e.g. a pin was removed). Nothing
    // before the window is uncovered then.
    if (!stop && active.some((s) => this.host.inMemory(s.to_id))) return [];
    const offPath = active
      .filter((s) => (!stop || s.to_seq > stop.to_seq) && !this.host.inMemory(s.to_id))
      .map((s) => s.id);
    if (offPath.length > 0) {
      this.host.store.retire(offPath, OFF_BRANCH);
      this.host.changed();
    }
    return rows.filter((row) => row.type === "message").reverse();
  }

  #segment(fromId: string, stops: string[]): PathRow[] {
    const sessionId = this.host.session().sessionId;
    return this.host.sql
      .exec<PathRow>(
        `WITH RECURSIVE path(id, parent_id, tokens, seq, type, depth) AS (
           SELECT id, parent_id, token_estimate, seq, type, 0 FROM cf_agents_session_messages
           WHERE session_id = ? AND id = ?
           UNION ALL
           SELECT m.id, m.parent_id, m.token_estimate, m.seq, m.type, p.depth + 1
           FROM cf_agents_session_messages m JOIN path p ON m.id = p.parent_id
           WHERE m.session_id = ? AND p.depth < ? AND p.id NOT IN (SELECT value FROM json_each(?))
         )
         SELECT id, parent_id, tokens, seq, type FROM path ORDER BY depth`,
        sessionId,
        fromId,
        sessionId,
        WALK_SEGMENT - 1,
        JSON.stringify(stops)
      )
      .toArray();
  }

  #row(id: string): { parent_id: string | null } | null {
    return (
      this.host.sql
        .exec<{ parent_id: string | null }>(
          `SELECT parent_id FROM cf_agents_session_messages WHERE session_id = ? AND id = ?`,
          this.host.session().sessionId,
          id
        )
        .toArray()[0] ?? null
    );
  }

  /** After a wake: where the last recorded answer's window started. */
  #lastRecordedWindowStart(): string | null {
    const row = this.host.sql
      .exec<{ record: string }>(`SELECT record FROM memory_context ORDER BY created_at DESC LIMIT 1`)
      .toArray()[0];
    if (!row) return null;
    return (JSON.parse(row.record) as { window?: { fromMessageId?: string | null } }).window?.fromMessageId ?? null;
  }

  async #load(part: readonly PathRow[]): Promise<UIMessage[]> {
    const out: UIMessage[] = [];
    const session = this.host.session();
    for (const row of part) {
      const message = await session.getMessage(row.id);
      if (message) out.push(message as unknown as UIMessage);
    }
    return out;
  }
}
