/**
 * A share link's viewer gets every frame of the room with its people under
 * aliases, never identity ids (domain/access/viewer-authors.ts says why).
 *
 * Why here, in the room, and by hand: the framework sends a room's frames
 * two ways, a broadcast to every socket (chat messages, streamed chunks,
 * reactions) and a send to one socket (a resumed stream's replay, a
 * greeting), and neither has a hook per recipient. The overseer could
 * rewrite on delivery, but that is work per token in the parent. So:
 * - a broadcast that may name someone (it holds a `"name":` key) goes to
 *   members as it is and is kept from every viewer socket by a marker the
 *   overseer reads (it tags viewer sockets when it accepts them, so one the
 *   room has not met yet is kept out too); each viewer the room knows then
 *   gets its link's copy, rewritten once per link. Any other frame (a text
 *   delta) goes to everyone at once, as before;
 * - a viewer's own connection is wrapped where the framework hands it to
 *   the room (connect, message), so a send to it alone is rewritten too.
 * Which sockets are viewers is read from the sockets once and kept until a
 * socket opens or closes, not walked per frame.
 */
import type { Connection, ConnectionContext, WSMessage } from "agents";
import { callerFromRequest, callerOf } from "@/server/domain/access/caller";
import { frameForViewer, mayNamePeople } from "@/server/domain/access/viewer-authors";
import { NOT_TO_VIEWERS } from "@/server/domain/sockets/socket-tags";

type Frame = string | ArrayBuffer | ArrayBufferView;

/** The room's socket hooks, as the framework calls them. */
interface SocketHooks {
  onConnect(connection: Connection, ctx: ConnectionContext): void | Promise<void>;
  onMessage(connection: Connection, message: WSMessage): void | Promise<void>;
  onClose(connection: Connection, code: number, reason: string, wasClean: boolean): void | Promise<void>;
}

/** The slice of the room this needs. */
export interface ViewerSocketsHost {
  getConnections(): Iterable<Connection>;
  getConnection(id: string): Connection | undefined;
}

export class ViewerSockets {
  readonly #room: ViewerSocketsHost;
  /** Viewer socket id → its share; null until read (a woken room reads it again). */
  #viewers: Map<string, string> | null = null;

  constructor(room: ViewerSocketsHost) {
    this.#room = room;
  }

  /**
   * Wraps the room's socket hooks as the framework left them (call last in
   * the constructor): a viewer's connection is wrapped before anything
   * else sees it, and which sockets are viewers is read again after a
   * socket opens or closes. At connect the caller is not remembered on the
   * socket yet; the request names it.
   */
  wrapHandlers(room: SocketHooks) {
    const { onConnect, onMessage, onClose } = room;
    room.onConnect = async (connection, ctx) => {
      await onConnect.call(room, this.wrap(connection, callerFromRequest(ctx.request)?.viewerOf), ctx);
      this.#viewers = null;
    };
    room.onMessage = (connection, message) => onMessage.call(room, this.wrap(connection), message);
    room.onClose = (connection, ...rest) => {
      this.#viewers = null;
      return onClose.call(room, connection, ...rest);
    };
  }

  /**
   * Sends `frame` to every socket but `without`, through `send` (the
   * framework's broadcast). A frame that may name people is kept from every
   * viewer socket (NOT_TO_VIEWERS: the overseer knows them by tag, even
   * one the room has not met yet), and each viewer the room knows gets its
   * share's copy; any other frame (a text delta) goes to everyone at once.
   */
  broadcast(frame: Frame, without: string[] | undefined, send: (frame: Frame, without?: string[]) => void) {
    if (typeof frame !== "string" || !mayNamePeople(frame)) return send(frame, without);
    const viewers = this.#viewerMap();
    // The viewers' ids too, for the framework's own delivery, which does not read the marker.
    send(frame, [...(without ?? []), NOT_TO_VIEWERS, ...viewers.keys()]);
    if (viewers.size === 0) return;
    const copies = new Map<string, string>();
    for (const [id, shareId] of viewers) {
      if (without?.includes(id)) continue;
      let copy = copies.get(shareId);
      if (copy === undefined) {
        copy = frameForViewer(frame, shareId);
        copies.set(shareId, copy);
      }
      this.#room.getConnection(id)?.send(copy);
    }
  }

  /**
   * The connection as the room should use it: a viewer's sends are
   * rewritten. `shareId` is read from the socket's caller unless given.
   */
  wrap<C extends Connection>(connection: C, shareId = callerOf(connection)?.viewerOf): C {
    if (shareId === undefined) return connection;
    return new Proxy(connection, {
      get(target, key) {
        if (key === "send")
          return (frame: Frame) => target.send(typeof frame === "string" ? frameForViewer(frame, shareId) : frame);
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
    });
  }

  #viewerMap(): Map<string, string> {
    if (this.#viewers) return this.#viewers;
    const viewers = new Map<string, string>();
    for (const connection of this.#room.getConnections()) {
      const shareId = callerOf(connection)?.viewerOf;
      if (shareId !== undefined) viewers.set(connection.id, shareId);
    }
    this.#viewers = viewers;
    return viewers;
  }
}
