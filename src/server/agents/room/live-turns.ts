/**
 * Persona and panel turns, announced to everyone in the room.
 *
 * Why by hand: an assistant answer streams through the framework, whose
 * `cf_agent_use_chat_response` frames tell every socket which request runs,
 * so anyone can see it and Stop it. Persona answers stream outside that
 * path (persona-turns.ts: several messages at once, relayed as message
 * updates); the framework's stream for such a turn starts only with a
 * panel's synthesis, or never. So the room says itself which turn runs:
 * a `rooms_turn` frame when it starts, one when it ends, and one to each
 * socket that connects meanwhile. Ephemeral: a wake forgets every turn,
 * as it forgets the turns themselves.
 */
import type { Connection } from "agents";
import type { LiveTurnKind, RoomServerFrame } from "../../../shared/protocol";

interface LiveTurnsHost {
  broadcast(message: string): void;
}

export class LiveTurns {
  #running = new Map<string, LiveTurnKind>();

  constructor(private readonly room: LiveTurnsHost) {}

  begin(requestId: string, kind: LiveTurnKind) {
    this.#running.set(requestId, kind);
    this.room.broadcast(frame(requestId, kind, true));
  }

  /** Idempotent: every way a turn can end may call it. */
  end(requestId: string) {
    const kind = this.#running.get(requestId);
    if (!kind) return;
    this.#running.delete(requestId);
    this.room.broadcast(frame(requestId, kind, false));
  }

  /** A socket that joins mid-turn learns of it at once. */
  greet(connection: Connection) {
    for (const [requestId, kind] of this.#running) connection.send(frame(requestId, kind, true));
  }
}

function frame(requestId: string, kind: LiveTurnKind, running: boolean): string {
  return JSON.stringify({ type: "rooms_turn", requestId, kind, running } satisfies RoomServerFrame);
}
