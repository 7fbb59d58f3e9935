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

  /** Counted in SQL so rooms larger than the hydration window report right. */
  messageCount(fallback: number): number {
    const rows = this.sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM cf_agents_session_messages
      WHERE session_id = ${this.sessionId()} AND type = 'message'`;
    return rows[0]?.n ?? fallback;
  }

  /** The activity to report now, given the room's in-memory messages. */
  next(messages: readonly UIMessage[]): RoomActivity {
    const last = messages.at(-1);
    return {
      seq: this.#nextSeq(),
      messageCount: this.messageCount(messages.length),
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
