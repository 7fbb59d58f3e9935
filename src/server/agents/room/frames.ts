/** Small helpers for the frames a room sends and receives on its sockets. */
import type { Connection } from "agents";
import type { ErrorCode } from "../../../shared/errors";
import type { RoomServerFrame } from "../../../shared/protocol";

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: the caller answers with an error frame.
    return undefined;
  }
}

export function sendRoomError(connection: Connection, code: ErrorCode, message: string) {
  connection.send(JSON.stringify({ type: "rooms_error", code, message } satisfies RoomServerFrame));
}
