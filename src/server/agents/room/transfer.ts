/**
 * The room's half of export, import and fork. Exports stream: they page
 * through the framework's history reader (bounded batches) and enqueue one
 * batch per pull, so a 100,000-message room never sits in memory at once.
 * Imports and forks append with `importMessage`, which writes a historical
 * message verbatim (its parent and time) without the change-feed work of a
 * live turn.
 */
import type { Session, SessionMessage } from "agents/sessions";
import type { ChatMessage, MessageMetadata } from "../../../shared/protocol";
import type { RoomExportHeader } from "../../../shared/transfer";
import { toChatMessage } from "../../domain/chat-messages";
import { renderMarkdownHeader, renderMarkdownMessage } from "../../domain/room-export";

const BATCH = 100;
const encoder = new TextEncoder();

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

async function* batches(session: Session, leafId?: string): AsyncGenerator<ChatMessage[]> {
  for await (const batch of session.historyBatches({ batchSize: BATCH, maxBatchBytes: 2 * 1024 * 1024, leafId })) {
    yield batch.map((message) => toChatMessage(message));
  }
}

/** Our JSON export: the header's fields, then `messages`, one per line. */
export function exportJson(session: Session, header: RoomExportHeader): ReadableStream<Uint8Array> {
  return streamOf(
    (async function* () {
      const head = JSON.stringify(header);
      yield `${head.slice(0, -1)},"messages":[`;
      let first = true;
      for await (const batch of batches(session)) {
        let out = "";
        for (const message of batch) {
          out += `${first ? "\n" : ",\n"}${JSON.stringify(message)}`;
          first = false;
        }
        yield out;
      }
      yield first ? "]}\n" : "\n]}\n";
    })()
  );
}

export function exportMarkdown(session: Session, header: RoomExportHeader): ReadableStream<Uint8Array> {
  return streamOf(
    (async function* () {
      yield renderMarkdownHeader(header);
      for await (const batch of batches(session)) yield batch.map(renderMarkdownMessage).join("");
    })()
  );
}

/**
 * NDJSON: a `room` line, then one `message` line each. The workspace export
 * concatenates these; a fork reads one (cut at `leafId`) into a new room.
 */
export function exportNdjson(session: Session, header: RoomExportHeader, leafId?: string): ReadableStream<Uint8Array> {
  return streamOf(
    (async function* () {
      yield `${JSON.stringify({ type: "room", ...header.room })}\n`;
      for await (const batch of batches(session, leafId)) {
        yield batch
          .map((message) => `${JSON.stringify({ type: "message", roomId: header.room.id, message })}\n`)
          .join("");
      }
    })()
  );
}

/** Appends messages after the current leaf, oldest first. */
export async function appendMessages(session: Session, messages: ChatMessage[]): Promise<void> {
  let parentId = (await session.getLatestLeaf())?.id ?? null;
  for (const message of messages) {
    const createdAt = (message.metadata as MessageMetadata | undefined)?.createdAt ?? Date.now();
    await session.importMessage(message as unknown as SessionMessage, { parentId, createdAt });
    parentId = message.id;
  }
}

/** Reads an NDJSON export stream (see exportNdjson) into this room, a batch at a time. */
export async function appendFromNdjson(session: Session, stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let count = 0;
  const flush = async (lines: string[]) => {
    const messages: ChatMessage[] = [];
    for (const line of lines) {
      if (!line) continue;
      const record = JSON.parse(line) as { type: string; message?: ChatMessage };
      if (record.type === "message" && record.message) messages.push(record.message);
    }
    await appendMessages(session, messages);
    count += messages.length;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const cut = buffer.lastIndexOf("\n");
    if (cut === -1) continue;
    const lines = buffer.slice(0, cut).split("\n");
    buffer = buffer.slice(cut + 1);
    await flush(lines);
  }
  await flush([buffer]);
  return count;
}
