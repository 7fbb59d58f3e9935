/**
 * The room's half of export, import and fork. Exports stream: they read the
 * branch oldest first in bounded segments (see `batches`) and enqueue one
 * batch per pull, so a 100,000-message room never sits in memory at once.
 * Imports and forks append with `importMessage`, which writes a historical
 * message verbatim (its parent and time) without the change-feed work of a
 * live turn.
 */
import type { Session, SessionMessage } from "agents/sessions";
import { toChatMessage } from "@/server/domain/messages/chat-messages";
import { ndjsonBatches } from "@/server/domain/transfer/ndjson-batches";
import {
  renderMarkdownHeader,
  renderMarkdownMessage,
  renderMarkdownVersionsHeading
} from "@/server/domain/transfer/room-export";
import { type FileCopy, type RoomFile, rehomeFileParts } from "@/shared/files";
import type { Persona } from "@/shared/personas";
import type { ChatMessage, MessageMetadata, RoomSettings } from "@/shared/protocol";
import type { ReactionsByMessage } from "@/shared/reactions";
import type {
  ExportedMemory,
  ExportedPin,
  ExportedSummary,
  ExportedVersion,
  RoomExportHeader,
  RoomOrigin
} from "@/shared/transfer";
import { exportHeader, type RoomOriginRecord } from "./origin";
import type { RoomFiles } from "./room-files";

const BATCH = 100;
/** Path steps read per segment; under the framework's 10,000-step walk cap, and ids only. */
const SEGMENT = 5_000;
const encoder = new TextEncoder();

type Sql = <T>(strings: TemplateStringsArray, ...values: (string | number | boolean | null)[]) => T[];

/** A stream fed by an async generator of strings, one pull at a time (back-pressure, bounded memory). */
function streamOf(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await chunks.return(undefined);
      }
    },
    { highWaterMark: 1 }
  );
}

/**
 * The path ending at `newestId`, at most SEGMENT messages long, oldest first
 * (with `oldestOnly`, just its oldest row). The oldest row's `parent_id` is
 * where the next older segment ends.
 */
function segment(sql: Sql, sessionId: string, newestId: string, oldestOnly: boolean) {
  return sql<{ id: string; parent_id: string | null }>`
    WITH RECURSIVE path(id, parent_id, depth) AS (
      SELECT id, parent_id, 0 FROM cf_agents_session_messages WHERE session_id = ${sessionId} AND id = ${newestId}
      UNION ALL
      SELECT m.id, m.parent_id, p.depth + 1 FROM cf_agents_session_messages m JOIN path p ON m.id = p.parent_id
      WHERE m.session_id = ${sessionId} AND p.depth < ${SEGMENT - 1}
    )
    SELECT id, parent_id FROM path ORDER BY depth DESC LIMIT ${oldestOnly ? 1 : SEGMENT}`;
}

/**
 * The branch ending at `leafId` (default: the latest leaf), root first, in
 * batches of BATCH. Written by hand because every framework path walk
 * (`history`, `historyBatches`, `getHistory`) stops 10,000 steps from the
 * leaf (MAX_PATH_DEPTH), so a larger room's export silently lost its oldest
 * messages. We walk back once recording only where each SEGMENT-long stretch
 * ends (a few ids per 100,000 messages), then read the stretches oldest first
 * as ids and load each batch's messages by id: memory stays one segment of ids
 * plus one batch.
 */
async function* batches(session: Session, sql: Sql, leafId?: string): AsyncGenerator<ChatMessage[]> {
  const leaf = leafId ?? (await session.getLatestLeaf())?.id;
  if (!leaf) return;
  const ends: string[] = [leaf];
  for (;;) {
    const parent = segment(sql, session.sessionId, ends[ends.length - 1], true)[0]?.parent_id;
    if (!parent) break;
    ends.push(parent);
  }
  for (const end of ends.reverse()) {
    const ids = segment(sql, session.sessionId, end, false).map((row) => row.id);
    for (let at = 0; at < ids.length; at += BATCH) {
      const batch: ChatMessage[] = [];
      for (const id of ids.slice(at, at + BATCH)) {
        const message = await session.getMessage(id);
        if (message) batch.push(toChatMessage(message));
      }
      yield batch;
    }
  }
}

/**
 * Every message off the branch ending at the latest leaf: the earlier
 * versions edits and regenerations kept, and what followed each on its own
 * branch. Oldest first (by seq), so a parent always comes before its
 * children, each with its parent's id. Ids are read in one query (the set
 * is small next to the branch); messages a batch at a time.
 */
async function* offBranch(session: Session, sql: Sql): AsyncGenerator<ExportedVersion[]> {
  const leaf = (await session.getLatestLeaf())?.id;
  if (!leaf) return;
  const sessionId = session.sessionId;
  const rows = sql<{ id: string; parent_id: string | null }>`
    WITH RECURSIVE path(id, parent_id) AS (
      SELECT id, parent_id FROM cf_agents_session_messages WHERE session_id = ${sessionId} AND id = ${leaf}
      UNION ALL
      SELECT m.id, m.parent_id FROM cf_agents_session_messages m JOIN path p ON m.id = p.parent_id
      WHERE m.session_id = ${sessionId}
    )
    SELECT id, parent_id FROM cf_agents_session_messages
    WHERE session_id = ${sessionId} AND type = 'message' AND id NOT IN (SELECT id FROM path)
    ORDER BY seq`;
  for (let at = 0; at < rows.length; at += BATCH) {
    const batch: ExportedVersion[] = [];
    for (const row of rows.slice(at, at + BATCH)) {
      const message = await session.getMessage(row.id);
      if (message) batch.push({ parentId: row.parent_id, message: toChatMessage(message) });
    }
    yield batch;
  }
}

/**
 * Writes each batch as the next items of a JSON array (one per line), `before`
 * ahead of the first item; answers whether there was any item.
 */
async function* jsonArrayItems(items: AsyncIterable<unknown[]>, before: string): AsyncGenerator<string, boolean> {
  let first = true;
  for await (const batch of items) {
    let out = "";
    for (const item of batch) {
      out += `${first ? before : ",\n"}${JSON.stringify(item)}`;
      first = false;
    }
    yield out;
  }
  return !first;
}

/** What export, import and fork need of their room. */
export interface TransferHost {
  roomId(): string;
  session(): Session;
  sql: Sql;
  settings(): RoomSettings;
  personas(): Persona[];
  origin: Pick<RoomOriginRecord, "get" | "set">;
  /** The room's synced state learns where a fork came from. */
  originChanged(origin: RoomOrigin): void;
  /** The room's pins and summaries, as exports carry them (room/room-memory.ts). */
  memory: { exportMemory(): ExportedMemory; importMemory(memory: ExportedMemory): Promise<void> };
  /** Reactions on messages, which people's exports carry (room/room-reactions.ts). */
  reactions: { of(messageIds: readonly string[]): ReactionsByMessage };
  /** The room's file records (room/room-files.ts): what a fork copies. */
  files: Pick<RoomFiles, "upTo" | "copyOut" | "copyIn">;
  /** This room's route of a file: an imported message's file parts are pointed here. */
  fileUrl(fileId: string): string;
}

/** The room's half of export, import and fork, as its RPC methods call it. */
export class RoomTransfer {
  constructor(private readonly host: TransferHost) {}

  /** The room's export, streamed: JSON or Markdown for people, NDJSON (cut at `leafId` for a fork) for rooms. */
  export(format: "json" | "markdown" | "ndjson", leafId?: string): ReadableStream<Uint8Array> {
    const { host } = this;
    const session = host.session();
    const header = exportHeader({
      id: host.roomId(),
      settings: host.settings(),
      personas: host.personas(),
      origin: host.origin.get()
    });
    if (format === "markdown") return exportMarkdown(session, host.sql, header, host.reactions);
    const memory = host.memory.exportMemory();
    if (format === "json") return exportJson(session, host.sql, header, memory, host.reactions);
    return exportNdjson(session, host.sql, header, memory, leafId);
  }

  async hasMessage(messageId: string): Promise<boolean> {
    return (await this.host.session().getMessage(messageId)) !== null;
  }

  /**
   * The files a fork at `messageId` copies: those added no later than that
   * message (the fork holds the room as it was then). A message without a
   * time (imported from elsewhere) takes every file.
   */
  async filesUpTo(messageId: string): Promise<RoomFile[]> {
    const message = await this.host.session().getMessage(messageId);
    const createdAt = (message?.metadata as MessageMetadata | undefined)?.createdAt;
    return this.host.files.upTo(typeof createdAt === "number" ? createdAt : null);
  }

  copyFileOut(fileId: string): FileCopy {
    return this.host.files.copyOut(fileId);
  }

  copyFileIn(copy: FileCopy): void {
    this.host.files.copyIn(copy);
  }

  importMessages(messages: ChatMessage[], after?: string | null): Promise<void> {
    return appendMessages(this.host.session(), this.#rehomed(messages), after);
  }

  importVersions(versions: ExportedVersion[]): Promise<void> {
    return insertVersions(
      this.host.session(),
      versions.map((v) => ({ ...v, message: rehomeFileParts(v.message, (id) => this.host.fileUrl(id)) }))
    );
  }

  /** Imported messages' file parts name this room's copies of their files (same ids). */
  #rehomed(messages: ChatMessage[]): ChatMessage[] {
    return messages.map((m) => rehomeFileParts(m, (id) => this.host.fileUrl(id)));
  }

  /** A fork: the source's NDJSON read in a batch at a time, then the memory it carried; answers the messages read. */
  async importStream(stream: ReadableStream<Uint8Array>, origin: RoomOrigin | null): Promise<number> {
    if (origin) {
      this.host.origin.set(origin);
      this.host.originChanged(origin);
    }
    const { count, memory } = await appendFromNdjson(this.host.session(), stream, (m) => this.#rehomed(m));
    await this.host.memory.importMemory(memory);
    return count;
  }
}

/**
 * Our JSON export: the header's fields, then `messages` (the room's
 * transcript), one per line, then, when there are any, `versions`: what
 * edits and regenerations replaced, each with its parent's id.
 */
function exportJson(
  session: Session,
  sql: Sql,
  header: RoomExportHeader,
  memory: ExportedMemory,
  reactions: TransferHost["reactions"]
): ReadableStream<Uint8Array> {
  return streamOf(
    (async function* () {
      const head = JSON.stringify(header);
      yield `${head.slice(0, -1)},"messages":[`;
      // Only messages someone reacted to are kept here: a few next to the transcript.
      const reacted: ReactionsByMessage = {};
      async function* noting(source: AsyncGenerator<ChatMessage[]>) {
        for await (const batch of source) {
          Object.assign(reacted, reactions.of(batch.map((m) => m.id)));
          yield batch;
        }
      }
      const anyMessage = yield* jsonArrayItems(noting(batches(session, sql)), "\n");
      yield anyMessage ? "\n]" : "]";
      // Earlier versions only when there are some, so a room without edits exports as before.
      const anyVersion = yield* jsonArrayItems(offBranch(session, sql), ',"versions":[\n');
      if (anyVersion) yield "\n]";
      // The room's memory only when it has some, so a room without any exports as before.
      if (memory.pins.length > 0 || memory.summaries.length > 0) yield `,"memory":${JSON.stringify(memory)}`;
      // Reactions by message id, only when there are some.
      if (Object.keys(reacted).length > 0) yield `,"reactions":${JSON.stringify(reacted)}`;
      yield "}\n";
    })()
  );
}

function exportMarkdown(
  session: Session,
  sql: Sql,
  header: RoomExportHeader,
  reactions: TransferHost["reactions"]
): ReadableStream<Uint8Array> {
  return streamOf(
    (async function* () {
      yield renderMarkdownHeader(header);
      for await (const batch of batches(session, sql)) {
        const reacted = reactions.of(batch.map((m) => m.id));
        yield batch.map((message) => renderMarkdownMessage(message, undefined, reacted[message.id])).join("");
      }
      let opened = false;
      for await (const batch of offBranch(session, sql)) {
        const section = batch.map(({ message }) => renderMarkdownMessage(message, "earlier version")).join("");
        yield opened ? section : renderMarkdownVersionsHeading() + section;
        opened = true;
      }
    })()
  );
}

/**
 * NDJSON: a `room` line, then one `message` line each, then (whole rooms
 * only) one `version` line per kept earlier version, then one `pin` and one
 * `summary` line per pin and summary in use. The workspace export
 * concatenates these; a fork reads one (cut at `leafId`, no versions) into
 * a new room, which keeps the summaries of what it copied.
 */
function exportNdjson(
  session: Session,
  sql: Sql,
  header: RoomExportHeader,
  memory: ExportedMemory,
  leafId?: string
): ReadableStream<Uint8Array> {
  return streamOf(
    (async function* () {
      yield `${JSON.stringify({ type: "room", ...header.room })}\n`;
      for await (const batch of batches(session, sql, leafId)) {
        yield batch
          .map((message) => `${JSON.stringify({ type: "message", roomId: header.room.id, message })}\n`)
          .join("");
      }
      if (leafId === undefined) {
        for await (const batch of offBranch(session, sql)) {
          yield batch
            .map((version) => `${JSON.stringify({ type: "version", roomId: header.room.id, ...version })}\n`)
            .join("");
        }
      }
      const roomId = header.room.id;
      const lines = [
        ...memory.pins.map((pin) => JSON.stringify({ type: "pin", roomId, pin })),
        ...memory.summaries.map((summary) => JSON.stringify({ type: "summary", roomId, summary }))
      ];
      if (lines.length > 0) yield `${lines.join("\n")}\n`;
    })()
  );
}

/**
 * Appends messages as a chain, oldest first: after `after` when given (null:
 * from the root), else after the current leaf.
 */
async function appendMessages(session: Session, messages: ChatMessage[], after?: string | null): Promise<void> {
  let parentId = after !== undefined ? after : ((await session.getLatestLeaf())?.id ?? null);
  for (const message of messages) {
    const createdAt = (message.metadata as MessageMetadata | undefined)?.createdAt ?? Date.now();
    await session.importMessage(message as unknown as SessionMessage, { parentId, createdAt });
    parentId = message.id;
  }
}

/**
 * Writes kept earlier versions, each under its own parent. An import writes
 * them before the transcript, so the transcript's last message is the
 * room's latest leaf and each newest version is the last of its siblings.
 */
async function insertVersions(session: Session, versions: ExportedVersion[]): Promise<void> {
  for (const { parentId, message } of versions) {
    const createdAt = (message.metadata as MessageMetadata | undefined)?.createdAt ?? Date.now();
    await session.importMessage(message as unknown as SessionMessage, { parentId, createdAt });
  }
}

/**
 * Reads an NDJSON export stream (see exportNdjson) into this room, at most
 * BATCH messages at a time: the next part of the stream is read only after
 * the batch before it is written (domain/transfer/ndjson-batches.ts).
 */
async function appendFromNdjson(
  session: Session,
  stream: ReadableStream<Uint8Array>,
  rehome: (messages: ChatMessage[]) => ChatMessage[]
): Promise<{ count: number; memory: ExportedMemory }> {
  let count = 0;
  const memory: ExportedMemory = { pins: [], summaries: [] };
  for await (const lines of ndjsonBatches(stream, BATCH)) {
    const messages: ChatMessage[] = [];
    for (const line of lines) {
      const record = JSON.parse(line) as {
        type: string;
        message?: ChatMessage;
        pin?: ExportedPin;
        summary?: ExportedSummary;
      };
      if (record.type === "message" && record.message) messages.push(record.message);
      // Another room of this server wrote these (a fork): the room checks each against what was copied.
      else if (record.type === "pin" && record.pin) memory.pins.push(record.pin);
      else if (record.type === "summary" && record.summary) memory.summaries.push(record.summary);
    }
    await appendMessages(session, rehome(messages));
    count += messages.length;
  }
  return { count, memory };
}
