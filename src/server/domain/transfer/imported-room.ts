/**
 * What an import file becomes once validated, whatever its format (our own
 * export, domain/transfer/room-import.ts; a ChatGPT export, domain/transfer/chatgpt-import.ts),
 * and the rules both formats share: the refusal, the reserved author id and
 * fresh message ids. Pure.
 */

import { AppError } from "@/server/app-error";
import { PERSIST_LIMITS } from "@/server/domain/messages/persisted-message";
import { MAX_MESSAGE_LENGTH, MAX_MESSAGES_PER_ROOM } from "@/shared/constants";
import type { CreatePersonaBody } from "@/shared/personas";
import type { MessageMetadata, RoomSettings } from "@/shared/protocol";
import type { ExportedMemory, TruncatedMessage } from "@/shared/transfer";

export const IMPORTED_AUTHOR_ID = "imported";

export interface ImportedMessage {
  id: string;
  role: "user" | "assistant";
  parts: Array<{ type: string; [key: string]: unknown }>;
  metadata: MessageMetadata;
}

/** A persona of the file, re-created in the new room (which gives it a new id). */
export interface ImportedPersona {
  /** Its id in the file, which the file's answers name. */
  id: string;
  body: CreatePersonaBody;
}

/** A kept earlier version (or what followed it), under its parent. */
export interface ImportedVersion {
  parentId: string | null;
  message: ImportedMessage;
}

export interface ImportedRoom {
  settings: RoomSettings;
  personas: ImportedPersona[];
  messages: ImportedMessage[];
  /** Off the transcript; each parent is a transcript message or an earlier entry. */
  versions: ImportedVersion[];
  /** Pins and summaries, their message ids already the room's new ones (our own export only). */
  memory?: ExportedMemory;
  /** Transcript messages shortened to fit (capMessageTexts); reported in the import's result. */
  truncated?: TruncatedMessage[];
}

export const badImport = (message: string) => new AppError("bad_request:import", 422, message);

/**
 * Fresh ids for every message (a file's ids are not ours to trust, and
 * the framework gives some prefixes meaning); `answers`, `versionOf` and
 * `replyTo` links follow.
 */
export function remapIds(messages: ImportedMessage[]): ImportedMessage[] {
  if (messages.length > MAX_MESSAGES_PER_ROOM) {
    throw badImport(`A room holds at most ${MAX_MESSAGES_PER_ROOM} messages; this one has ${messages.length}.`);
  }
  const ids = new Map<string, string>();
  for (const m of messages) {
    if (ids.has(m.id)) throw badImport(`Message id "${m.id}" appears twice.`);
    ids.set(m.id, crypto.randomUUID());
  }
  return messages.map((m) => {
    const metadata = { ...m.metadata };
    for (const key of ["answers", "versionOf"] as const) {
      if (metadata[key] === undefined) continue;
      const mapped = ids.get(metadata[key]);
      if (mapped) metadata[key] = mapped;
      else delete metadata[key];
    }
    // A reply to a message the file does not hold is no reply here.
    const replyTo = metadata.replyTo && ids.get(metadata.replyTo.id);
    if (replyTo && metadata.replyTo) metadata.replyTo = { ...metadata.replyTo, id: replyTo };
    else delete metadata.replyTo;
    return { ...m, id: ids.get(m.id) as string, metadata };
  });
}

/** The most text one part of a message of `role` may keep (domain/messages/persisted-message.ts enforces it on write). */
const textCap = (role: ImportedMessage["role"]) =>
  role === "user" ? MAX_MESSAGE_LENGTH : PERSIST_LIMITS.maxPartTextLength;

/** `text` cut to at most `max` code units, never between the halves of a surrogate pair. */
function cut(text: string, max: number): string {
  const kept = text.slice(0, max);
  const last = kept.charCodeAt(kept.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? kept.slice(0, -1) : kept;
}

/**
 * Cuts every text of the transcript to the caps a stored message has, and
 * says which messages it cut. The room would cut them anyway when it stores
 * them, silently: a 3,000,000-character ChatGPT turn became 16,000
 * characters with no word to the person importing it. Cutting here, where
 * the import still knows each message's place, is what lets the result
 * name them.
 */
export function capMessageTexts(messages: ImportedMessage[]): {
  messages: ImportedMessage[];
  truncated: TruncatedMessage[];
} {
  const truncated: TruncatedMessage[] = [];
  const capped = messages.map((message, index) => {
    const max = textCap(message.role);
    const isLong = (p: ImportedMessage["parts"][number]) =>
      (p.type === "text" || p.type === "reasoning") && typeof p.text === "string" && p.text.length > max;
    if (!message.parts.some(isLong)) return message;
    const textLength = (parts: ImportedMessage["parts"]) =>
      parts.reduce((n, p) => n + (typeof p.text === "string" ? p.text.length : 0), 0);
    const parts = message.parts.map((p) => (isLong(p) ? { ...p, text: cut(p.text as string, max) } : p));
    truncated.push({
      messageId: message.id,
      position: index + 1,
      role: message.role,
      originalLength: textLength(message.parts),
      keptLength: textLength(parts)
    });
    return { ...message, parts };
  });
  return { messages: capped, truncated };
}
