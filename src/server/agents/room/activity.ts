/**
 * Activity reports from a room to its overseer, so the room list stays
 * current without the overseer ever waking rooms to count their messages.
 * Each report carries a sequence number from the room's own SQLite, so the
 * overseer can drop reports that arrive out of order.
 */
import type { Agent } from "agents";
import type { UIMessage } from "ai";
import type { WorkspaceBudgetFigure } from "@/server/domain/budgets/workspace-budget-cache";
import { messagePreview, type RoomActivity, type Talker } from "@/server/domain/rooms/room-rows";
import type { Env } from "@/server/env";
import type { RoomLive } from "@/shared/introspection";
import type { OverseerLink } from "./overseer-link";

type Sql = Agent<Env>["sql"];

export class RoomActivityLog {
  constructor(
    private readonly sql: Sql,
    private readonly sessionId: () => string
  ) {}

  createTable() {
    this.sql`CREATE TABLE IF NOT EXISTS room_activity (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)`;
  }

  /**
   * The room's message count, exact (rooms larger than the in-memory window
   * included) and O(1): triggers on the session's message table keep a
   * counter, so no turn ever counts the transcript. The counter is seeded
   * with one COUNT the first time a room runs this code.
   */
  messageCount(): number {
    const sessionId = this.sessionId();
    if (!this.#counting) {
      this.#installCounter();
      this.#counting = true;
    }
    const [row] = this.sql<{ n: number }>`SELECT n FROM room_message_count WHERE session_id = ${sessionId}`;
    if (row) return row.n;
    const [{ n }] = this.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM cf_agents_session_messages WHERE session_id = ${sessionId} AND type = 'message'`;
    this.sql`INSERT INTO room_message_count (session_id, n) VALUES (${sessionId}, ${n})`;
    return n;
  }

  #counting = false;

  // Sessions writes messages with INSERT, INSERT OR IGNORE (an ignored row
  // fires no trigger), UPDATE and DELETE, never REPLACE, so these two
  // triggers see every row that comes and goes.
  #installCounter() {
    this.sql`CREATE TABLE IF NOT EXISTS room_message_count (session_id TEXT PRIMARY KEY, n INTEGER NOT NULL)`;
    this.sql`CREATE TRIGGER IF NOT EXISTS room_message_count_insert AFTER INSERT ON cf_agents_session_messages
      WHEN NEW.type = 'message'
      BEGIN UPDATE room_message_count SET n = n + 1 WHERE session_id = NEW.session_id; END`;
    this.sql`CREATE TRIGGER IF NOT EXISTS room_message_count_delete AFTER DELETE ON cf_agents_session_messages
      WHEN OLD.type = 'message'
      BEGIN UPDATE room_message_count SET n = n - 1 WHERE session_id = OLD.session_id; END`;
  }

  /**
   * Messages on the room's current path: what people see and the room list
   * shows. Every stored row counts against the room's cap (messageCount),
   * but earlier versions, and the turns after them, are kept off the path.
   * Kept as a second counter of rows off the path, moved only when a branch
   * is written, so no turn walks the transcript.
   */
  visibleCount(): number {
    return this.messageCount() - this.#offPath();
  }

  /**
   * After an edit or regeneration stored its new version: `leaving` messages
   * (the replaced one and all after it) are now off the path.
   */
  leftPath(leaving: number) {
    this.#offPath();
    this.sql`UPDATE room_off_path SET n = n + ${Math.max(0, leaving)} WHERE session_id = ${this.sessionId()}`;
  }

  /** After an import wrote rows the counters did not see move: count the path once. */
  recount() {
    this.#offPathTable();
    this.sql`DELETE FROM room_off_path WHERE session_id = ${this.sessionId()}`;
  }

  #offPathTableMade = false;

  #offPathTable() {
    if (this.#offPathTableMade) return;
    this.sql`CREATE TABLE IF NOT EXISTS room_off_path (session_id TEXT PRIMARY KEY, n INTEGER NOT NULL)`;
    this.#offPathTableMade = true;
  }

  #offPath(): number {
    const sessionId = this.sessionId();
    this.#offPathTable();
    const [row] = this.sql<{ n: number }>`SELECT n FROM room_off_path WHERE session_id = ${sessionId}`;
    if (row) return row.n;
    // Once per room (rooms older than this counter, and after an import):
    // walk the path back from the newest message, which is on it.
    const [{ n: onPath }] = this.sql<{ n: number }>`
      WITH RECURSIVE path(id, parent_id, type) AS (
        SELECT id, parent_id, type FROM cf_agents_session_messages
        WHERE session_id = ${sessionId}
          AND seq = (SELECT MAX(seq) FROM cf_agents_session_messages WHERE session_id = ${sessionId} AND type = 'message')
        UNION ALL
        SELECT m.id, m.parent_id, m.type FROM cf_agents_session_messages m
        JOIN path p ON m.session_id = ${sessionId} AND m.id = p.parent_id
      )
      SELECT COUNT(*) AS n FROM path WHERE type = 'message'`;
    const offPath = Math.max(0, this.messageCount() - onPath);
    this.sql`INSERT INTO room_off_path (session_id, n) VALUES (${sessionId}, ${offPath})`;
    return offPath;
  }

  /** Who wrote since the last report, and who was reported already while the room has been awake. */
  #talkers = new Map<string, Talker>();
  #reportedTalkers = new Set<string>();

  /** Someone wrote over the socket: the next report names them, once per waking. */
  talked(talker: Talker) {
    if (!this.#reportedTalkers.has(talker.id)) this.#talkers.set(talker.id, talker);
  }

  /** The activity to report now, given the room's in-memory messages. */
  next(messages: readonly UIMessage[]): RoomActivity {
    const last = messages.at(-1);
    const talkers = [...this.#talkers.values()];
    for (const talker of talkers) this.#reportedTalkers.add(talker.id);
    this.#talkers.clear();
    return {
      seq: this.#nextSeq(),
      messageCount: this.visibleCount(),
      lastMessagePreview: last ? messagePreview(last.parts) : null,
      lastActiveAt: Date.now(),
      ...(talkers.length ? { talkers } : {})
    };
  }

  #nextSeq(): number {
    const rows = this.sql<{ seq: number }>`
      INSERT INTO room_activity (id, seq) VALUES (1, 1)
      ON CONFLICT (id) DO UPDATE SET seq = seq + 1
      RETURNING seq`;
    return rows[0].seq;
  }
}

/**
 * Sends a report to the room's overseer, through the room's one stub
 * (room/overseer-link.ts). Answers the workspace's budget figure, which the
 * room keeps for its turns (room/budget.ts).
 */
async function reportToOverseer(
  overseer: OverseerLink,
  roomId: string,
  activity: RoomActivity
): Promise<WorkspaceBudgetFigure | undefined> {
  return overseer.call((o) => o.recordRoomActivity(roomId, activity));
}

/** What one activity report is built from, when it is sent. */
export interface ActivityReportSource {
  overseer: OverseerLink;
  roomId(): string;
  /** The room's live report (room/room-introspection.ts), read first: the activity carries it. */
  live(): RoomLive;
  /** The report's count, preview and sequence number (RoomActivityLog.next). */
  activity(): RoomActivity;
  /** Keeps the workspace's budget figure the overseer answers with (room/budget.ts). */
  learn(figure: WorkspaceBudgetFigure | undefined, tokensToday: number): void;
}

/**
 * Sends the room's activity report, built now (the throttle calls it at
 * most once per interval, domain/rooms/throttled-reports.ts). Best effort:
 * a missed report is corrected by the next one.
 */
export async function sendActivityReport(source: ActivityReportSource): Promise<void> {
  if (!source.overseer.present) return console.warn("[ChatRoom] not a facet: no overseer to report activity to");
  const live = source.live();
  const activity = { ...source.activity(), live };
  try {
    // The answer is the workspace's budget figure, counting this report's tokens.
    source.learn(await reportToOverseer(source.overseer, source.roomId(), activity), live.tokensToday);
  } catch (error) {
    console.warn("[ChatRoom] failed to report activity:", error);
  }
}
