/**
 * Who is in a room and who is typing. Ephemeral: kept in each connection's
 * state, never persisted, and pushed to every socket on each change.
 */
import type { Connection, WSMessage } from "agents";
import { type PresenceUser, RoomClientFrame, type RoomServerFrame } from "../../../shared/protocol";
import { parseJson, sendRoomError } from "./frames";

export type ConnectionInfo = { name?: string; typing?: boolean };

export const NEW_CONNECTION: ConnectionInfo = { name: "Anonymous", typing: false };

/**
 * Applies a rooms_hello or rooms_typing frame to the connection's state.
 * Anything else gets an error frame; returns whether presence changed.
 */
export function applyPresenceFrame(connection: Connection<ConnectionInfo>, message: WSMessage): boolean {
  const parsed = typeof message === "string" ? parseJson(message) : undefined;
  const frame = RoomClientFrame.safeParse(parsed);
  if (!frame.success) {
    sendRoomError(
      connection,
      "bad_request:body",
      "Unrecognised frame: expected a chat protocol frame, rooms_hello or rooms_typing."
    );
    return false;
  }
  const current = connection.state ?? {};
  if (frame.data.type === "rooms_hello") connection.setState({ ...current, name: frame.data.name });
  else connection.setState({ ...current, typing: frame.data.typing });
  return true;
}

/** The presence frame for everyone connected, except a connection that is leaving. */
export function presenceFrame(connections: Iterable<Connection<ConnectionInfo>>, leavingId?: string): string {
  const users: PresenceUser[] = [];
  for (const connection of connections) {
    if (connection.id === leavingId) continue;
    users.push({
      connectionId: connection.id,
      name: connection.state?.name ?? "Anonymous",
      typing: connection.state?.typing ?? false
    });
  }
  return JSON.stringify({ type: "rooms_presence", users } satisfies RoomServerFrame);
}
