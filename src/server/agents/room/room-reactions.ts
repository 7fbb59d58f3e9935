/**
 * Emoji reactions on the room's messages, in a table of our own beside the
 * transcript: a reaction is not an edit, so the message row (and its
 * versions, its search index, its place in the model's context) is never
 * rewritten for one. Everyone connected learns of a change at once (a
 * `rooms_reactions` frame); a page of history carries its messages'
 * reactions, and a socket that connects gets those of the messages in the
 * room's window, so a reconnect misses none.
 */
import type { Connection } from "agents";
import { AppError } from "@/server/app-error";
import type { MessageAuthor } from "@/shared/identity";
import type { RoomServerFrame } from "@/shared/protocol";
import {
  MAX_REACTIONS_PER_MESSAGE,
  type Reaction,
  type ReactionsByMessage,
  type ReactionToggleResult
} from "@/shared/reactions";

export interface ReactionsHost {
  sql: SqlStorage;
  /** Whether the room holds this message (any version of it). */
  hasMessage(messageId: string): Promise<boolean>;
  broadcast(message: string): void;
}

type ReactionRow = { message_id: string; emoji: string; author_id: string; author_name: string };

/** Ids per `IN (…)` query: well under SQLite's bound-parameter limit. */
const IDS_PER_QUERY = 90;

export class RoomReactions {
  constructor(private readonly host: ReactionsHost) {
    host.sql.exec(`CREATE TABLE IF NOT EXISTS message_reactions (
      message_id TEXT NOT NULL, emoji TEXT NOT NULL, author_id TEXT NOT NULL, author_name TEXT NOT NULL,
      created_at INTEGER NOT NULL, PRIMARY KEY (message_id, emoji, author_id))`);
  }

  /** Adds `who`'s reaction, or takes it back if it was there; everyone connected is told. */
  async toggle(messageId: string, emoji: string, who: MessageAuthor, now = Date.now()): Promise<ReactionToggleResult> {
    await this.#requireMessage(messageId);
    const removed =
      this.host.sql.exec(
        `DELETE FROM message_reactions WHERE message_id = ? AND emoji = ? AND author_id = ?`,
        messageId,
        emoji,
        who.id
      ).rowsWritten > 0;
    if (!removed) this.#insert(messageId, emoji, who, now);
    return { messageId, reacted: !removed, reactions: this.#announce(messageId) };
  }

  /** Adds `who`'s reaction unless it is there already (a persona's: it never takes one back). */
  async add(messageId: string, emoji: string, who: MessageAuthor, now = Date.now()): Promise<Reaction[]> {
    await this.#requireMessage(messageId);
    const there = this.host.sql
      .exec(
        `SELECT 1 FROM message_reactions WHERE message_id = ? AND emoji = ? AND author_id = ?`,
        messageId,
        emoji,
        who.id
      )
      .toArray();
    if (there.length === 0) this.#insert(messageId, emoji, who, now);
    return this.#announce(messageId);
  }

  async #requireMessage(messageId: string) {
    if (!(await this.host.hasMessage(messageId))) {
      throw new AppError("not_found:message", 404, `Message "${messageId}" is not in this room.`);
    }
  }

  #insert(messageId: string, emoji: string, who: MessageAuthor, now: number) {
    const { sql } = this.host;
    const kinds = sql
      .exec<{ emoji: string }>(`SELECT DISTINCT emoji FROM message_reactions WHERE message_id = ?`, messageId)
      .toArray();
    if (kinds.length >= MAX_REACTIONS_PER_MESSAGE && !kinds.some((k) => k.emoji === emoji)) {
      throw new AppError(
        "conflict:reaction_limit",
        409,
        `A message takes at most ${MAX_REACTIONS_PER_MESSAGE} different reactions; react with one already there.`
      );
    }
    sql.exec(
      `INSERT INTO message_reactions (message_id, emoji, author_id, author_name, created_at) VALUES (?, ?, ?, ?, ?)`,
      messageId,
      emoji,
      who.id,
      who.name,
      now
    );
  }

  /** Everyone connected learns the message's reactions as they are now. */
  #announce(messageId: string): Reaction[] {
    const reactions = this.of([messageId])[messageId] ?? [];
    this.host.broadcast(frame({ [messageId]: reactions }));
    return reactions;
  }

  /** The reactions of these messages (those with none are left out), each emoji in the order it first came. */
  of(messageIds: readonly string[]): ReactionsByMessage {
    const out: ReactionsByMessage = {};
    for (let at = 0; at < messageIds.length; at += IDS_PER_QUERY) {
      const ids = messageIds.slice(at, at + IDS_PER_QUERY);
      const rows = this.host.sql
        .exec<ReactionRow>(
          `SELECT message_id, emoji, author_id, author_name FROM message_reactions
           WHERE message_id IN (${ids.map(() => "?").join(",")}) ORDER BY created_at, rowid`,
          ...ids
        )
        .toArray();
      for (const row of rows) {
        out[row.message_id] ??= [];
        const list = out[row.message_id];
        let reaction = list.find((r) => r.emoji === row.emoji);
        if (!reaction) {
          reaction = { emoji: row.emoji, by: [] } satisfies Reaction;
          list.push(reaction);
        }
        reaction.by.push({ id: row.author_id, name: row.author_name });
      }
    }
    return out;
  }

  /** A socket that connects learns the reactions of the messages the room holds in memory. */
  greet(connection: Connection, messageIds: readonly string[]) {
    const reactions = this.of(messageIds);
    if (Object.keys(reactions).length > 0) connection.send(frame(reactions));
  }
}

function frame(reactions: ReactionsByMessage): string {
  return JSON.stringify({ type: "rooms_reactions", reactions } satisfies RoomServerFrame);
}
