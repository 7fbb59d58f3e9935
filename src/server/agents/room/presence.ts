/**
 * Who is in a room and who is typing. Ephemeral: kept in each connection's
 * state (the caller, set at connect from what the Worker verified, and a
 * typing flag), never persisted.
 *
 * One entry per identity (domain/sockets/presence-list.ts). Updates go out only when the
 * list changed and at most every PRESENCE_INTERVAL_MS per room, so bursts
 * of hellos, typing flips or reconnects cannot be amplified into floods.
 * Sockets per room, per identity and per address are capped at connect, and
 * a refused socket is closed with 4429.
 */
import type { Connection, ConnectionContext, WSMessage } from "agents";
import { type Caller, callerOf, isViewer, limitKeys, rememberCaller } from "@/server/domain/access/caller";
import { Coalescer, presenceList } from "@/server/domain/sockets/presence-list";
import {
  MAX_SOCKETS_PER_ADDRESS,
  MAX_SOCKETS_PER_IDENTITY,
  MAX_SOCKETS_PER_ROOM,
  PRESENCE_INTERVAL_MS,
  ROOM_FULL_CODE
} from "@/shared/constants";
import { type PresenceUser, RoomClientFrame, type RoomServerFrame } from "@/shared/protocol";
import { MAX_VIEWER_SOCKETS_PER_ROOM } from "@/shared/shares";
import { parseJson, sendRoomError } from "./frames";

/** Per-socket state besides `caller` (domain/access/caller.ts). */
export type ConnectionInfo = { typing?: boolean };

/** What presence needs from its room. */
interface PresenceHost {
  getConnections<T>(): Iterable<Connection<T>>;
  broadcast(message: string, without?: string[]): void;
}

export class RoomPresence {
  #coalescer = new Coalescer(PRESENCE_INTERVAL_MS, () => this.#flush());
  #lastSent = "";
  /** Sockets sent the list directly at connect, with what they were sent. */
  #greeted = new Map<string, string>();

  constructor(private readonly room: PresenceHost) {}

  /**
   * Remembers who opened the socket and admits it, or closes it when it is
   * one socket too many (for the room or for this identity).
   */
  join(connection: Connection<ConnectionInfo>, ctx: ConnectionContext): boolean {
    const caller = rememberCaller(connection, ctx.request);
    const refusal = caller ? this.#capRefusal(connection.id, caller) : "This socket did not come through the app.";
    if (refusal) {
      sendRoomError(connection, "rate_limited:requests", refusal);
      // 4xxx: the client gives up instead of reconnecting at once.
      connection.close(ROOM_FULL_CODE, refusal);
      return false;
    }
    connection.setState((state) => ({ ...(state ?? {}), typing: false }));
    // A share link's viewer neither sees who is here nor is listed.
    if (isViewer(connection)) return true;
    // The newcomer gets the list at once; everyone else a coalesced update.
    const frame = this.#frame();
    connection.send(frame);
    this.#greeted.set(connection.id, frame);
    this.#coalescer.request();
    return true;
  }

  /**
   * The framework still lists a socket while its onClose runs, so the list
   * sent then would still hold the person leaving (and, being unchanged, not
   * be sent at all). Remember who left until the framework stops listing them.
   */
  #gone = new Set<string>();

  leave(connection: Connection) {
    this.#gone.add(connection.id);
    this.#coalescer.request();
  }

  #present(): Connection<ConnectionInfo>[] {
    const listed = [...this.room.getConnections<ConnectionInfo>()];
    const ids = new Set(listed.map((c) => c.id));
    for (const id of this.#gone) if (!ids.has(id)) this.#gone.delete(id);
    return listed.filter((c) => !this.#gone.has(c.id) && !isViewer(c));
  }

  /**
   * A rooms_typing frame updates the socket's flag; a rooms_hello changes
   * nothing (names come from the identity). Anything else gets an error.
   */
  receive(connection: Connection<ConnectionInfo>, message: WSMessage) {
    const parsed = typeof message === "string" ? parseJson(message) : undefined;
    const frame = RoomClientFrame.safeParse(parsed);
    if (!frame.success) {
      sendRoomError(
        connection,
        "bad_request:body",
        "Unrecognised frame: expected a chat protocol frame or rooms_typing."
      );
      return;
    }
    if (frame.data.type !== "rooms_typing") return;
    const typing = frame.data.typing;
    if ((connection.state?.typing ?? false) === typing) return;
    connection.setState((state) => ({ ...(state ?? {}), typing }));
    this.#coalescer.request();
  }

  #capRefusal(selfId: string, caller: Caller): string | null {
    const mine = limitKeys(caller);
    let total = 0;
    let same = 0;
    let sameAddress = 0;
    let viewers = 0;
    for (const other of this.room.getConnections()) {
      if (other.id === selfId) continue;
      total += 1;
      if (isViewer(other)) viewers += 1;
      const keys = limitKeys(callerOf(other));
      if (keys.identity === mine.identity) same += 1;
      if (keys.address === mine.address) sameAddress += 1;
    }
    if (caller.viewerOf !== undefined && viewers >= MAX_VIEWER_SOCKETS_PER_ROOM) {
      return `This room has ${MAX_VIEWER_SOCKETS_PER_ROOM} viewers through share links, the most it takes.`;
    }
    if (total >= MAX_SOCKETS_PER_ROOM) {
      return `This room has ${MAX_SOCKETS_PER_ROOM} connections open, the most it takes.`;
    }
    if (same >= MAX_SOCKETS_PER_IDENTITY) {
      return `You have ${MAX_SOCKETS_PER_IDENTITY} connections open to this room; close one first.`;
    }
    // Identities are cheap (every sign-in mints one): the address caps them together.
    if (sameAddress >= MAX_SOCKETS_PER_ADDRESS) {
      return `Your network has ${MAX_SOCKETS_PER_ADDRESS} connections open to this room, the most it may hold; close one first.`;
    }
    return null;
  }

  /** Who is here now, as the presence frame lists them. */
  users(): PresenceUser[] {
    return presenceList(
      this.#present().map((c) => ({
        caller: callerOf(c),
        typing: c.state?.typing ?? false
      }))
    );
  }

  #frame(): string {
    return JSON.stringify({ type: "rooms_presence", users: this.users() } satisfies RoomServerFrame);
  }

  /** Sends the list to everyone, only if it changed since the last send. */
  #flush() {
    const frame = this.#frame();
    const greeted = [...this.#greeted].filter(([, sent]) => sent === frame).map(([id]) => id);
    this.#greeted.clear();
    if (frame === this.#lastSent) return;
    this.#lastSent = frame;
    const viewers = [...this.room.getConnections()].filter(isViewer).map((c) => c.id);
    this.room.broadcast(frame, [...greeted, ...viewers]);
  }
}
