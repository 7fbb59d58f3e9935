/** Small helpers for the frames a room sends and receives on its sockets. */
import type { Connection, WSMessage } from "agents";
import type { ErrorCode } from "../../../shared/errors";
import { RoomClientFrame, type RoomServerFrame } from "../../../shared/protocol";

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

/** The run id of a `rooms_task_stop` frame, or null for any other frame. */
export function taskStopRequest(message: WSMessage): string | null {
  if (typeof message !== "string" || !message.includes('"rooms_task_stop"')) return null;
  const frame = RoomClientFrame.safeParse(parseJson(message));
  return frame.success && frame.data.type === "rooms_task_stop" ? frame.data.runId : null;
}
