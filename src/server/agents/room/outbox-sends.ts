/**
 * Outbox sends and stop requests, for one room (see domain/messages/client-sends.ts).
 *
 * - No new message may reuse the id of a stored row (`isTaken`), whether or
 *   not it came from an outbox.
 * - A chat request carrying a client message id is stored at most once:
 *   a copy of one already stored (or admitted and about to be) is settled as
 *   skipped and acknowledged again, never stored twice and never taken as an
 *   edit of the stored message.
 * - Its sender learns it is stored from a `rooms_ack` frame, sent once the
 *   framework has persisted it (the framework itself does not echo a send
 *   back to the socket that sent it).
 * - A cancel records who sent it, so the stopped answer can say who stopped it.
 */
import { MessageType } from "@cloudflare/ai-chat/types";
import type { Connection } from "agents";
import type { UIMessage } from "ai";
import { callerOf } from "@/server/domain/access/caller";
import { RecentIds, readClientSend, StopRequests } from "@/server/domain/messages/client-sends";
import { authorOf, type MessageAuthor } from "@/shared/identity";
import type { RoomServerFrame } from "@/shared/protocol";

interface OutboxRoom {
  messages(): readonly UIMessage[];
  /** Whether a message with this id is stored beyond the hydrated window. */
  isStoredBeyondWindow(messageId: string): Promise<boolean>;
  getConnection(id: string): Connection | undefined;
}

export type OutboxAdmission =
  | { kind: "plain" }
  | { kind: "new"; clientMessageId: string }
  | { kind: "duplicate" }
  | { kind: "invalid"; message: string };

export class OutboxSends {
  #recent = new RecentIds();
  /** Admitted sends to acknowledge once persisted: message id → connection id. */
  #pendingAcks = new Map<string, string>();
  #stops = new StopRequests<MessageAuthor>();

  constructor(private readonly room: OutboxRoom) {}

  /** First look at a chat request body: plain, a new outbox send, or a copy of one. */
  async admit(connection: Connection, requestId: string, rawBody: unknown): Promise<OutboxAdmission> {
    const read = readClientSend(rawBody);
    if (read.kind !== "outbox") return read;
    const { clientMessageId } = read;
    const seen = this.room.messages().some((m) => m.id === clientMessageId) || (await this.isTaken(clientMessageId));
    if (!seen) return { kind: "new", clientMessageId };
    // Settle the copy's request, as the framework settles a skipped one.
    connection.send(
      JSON.stringify({
        type: MessageType.CF_AGENT_USE_CHAT_RESPONSE,
        id: requestId,
        body: "",
        done: true,
        outcome: "skipped"
      })
    );
    if (this.#pendingAcks.has(clientMessageId)) this.#pendingAcks.set(clientMessageId, connection.id);
    else this.#ack(connection.id, clientMessageId, true);
    return { kind: "duplicate" };
  }

  /**
   * Whether a new message's id already names a row of this room: stored
   * anywhere (an earlier version, an old answer, a message beyond the
   * in-memory window) or claimed by a send on its way to storage. The
   * framework stores messages by id, so such an id would write over that
   * row: a client id may only ever name a new one.
   */
  async isTaken(messageId: string): Promise<boolean> {
    return (
      this.#recent.has(messageId, Date.now()) ||
      (await this.room.isStoredBeyondWindow(messageId)) ||
      // Checked again after the await: a copy may have been claimed meanwhile.
      this.#recent.has(messageId, Date.now())
    );
  }

  /** A new message with this id goes to the framework now: no other send may use it. */
  claim(messageId: string) {
    this.#recent.add(messageId, Date.now());
  }

  /** The send passed every other check and goes to the framework now. */
  accepted(connection: Connection, clientMessageId: string) {
    this.claim(clientMessageId);
    this.#pendingAcks.set(clientMessageId, connection.id);
  }

  /** After every persist: acknowledge the sends it stored. */
  persisted(messages: readonly UIMessage[]) {
    if (this.#pendingAcks.size === 0) return;
    for (const [messageId, connectionId] of this.#pendingAcks) {
      if (!messages.some((m) => m.id === messageId)) continue;
      this.#pendingAcks.delete(messageId);
      this.#ack(connectionId, messageId, false);
    }
  }

  cancelRequested(connection: Connection, requestId: string) {
    const caller = callerOf(connection);
    if (caller) this.#stops.record(requestId, authorOf(caller.identity));
  }

  stoppedBy(requestId: string): MessageAuthor | undefined {
    return this.#stops.take(requestId);
  }

  /** Who stopped a turn that is still ending (its persona answers each read it). */
  stopperOf(requestId: string): MessageAuthor | undefined {
    return this.#stops.peek(requestId);
  }

  #ack(connectionId: string, clientMessageId: string, duplicate: boolean) {
    const frame: RoomServerFrame = { type: "rooms_ack", clientMessageId, duplicate };
    this.room.getConnection(connectionId)?.send(JSON.stringify(frame));
  }
}
