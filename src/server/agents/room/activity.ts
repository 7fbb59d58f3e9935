/**
 * Activity reports from a room to its overseer, so the room list stays
 * current without the overseer ever waking rooms to count their messages.
 * Each report carries a sequence number from the room's own SQLite, so the
 * overseer can drop reports that arrive out of order.
 */
import { type Agent, getAgentByName } from "agents";
import type { UIMessage } from "ai";
import { messagePreview, type RoomActivity } from "../../domain/rooms";
import type { Env } from "../../env";

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

  /** The activity to report now, given the room's in-memory messages. */
  next(messages: readonly UIMessage[]): RoomActivity {
    const last = messages.at(-1);
    return {
      seq: this.#nextSeq(),
      messageCount: this.messageCount(),
      lastMessagePreview: last ? messagePreview(last.parts) : null,
      lastActiveAt: Date.now()
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
 * Sends a report to the room's overseer. The overseer is a top-level Durable
 * Object, so its namespace binding reaches it (as `parentAgent` would)
 * without this module importing the overseer's class.
 */
export async function reportToOverseer(env: Env, overseerName: string, roomId: string, activity: RoomActivity) {
  const overseer = await getAgentByName(env.OverseerAgent, overseerName);
  await overseer.recordRoomActivity(roomId, activity);
}
