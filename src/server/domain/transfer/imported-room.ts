/**
 * What an import file becomes once validated, whatever its format (our own
 * export, domain/transfer/room-import.ts; a ChatGPT export, domain/transfer/chatgpt-import.ts),
 * and the rules both formats share: the refusal, the reserved author id and
 * fresh message ids. Pure.
 */

import { AppError } from "@/server/app-error";
import { MAX_MESSAGES_PER_ROOM } from "@/shared/constants";
import type { CreatePersonaBody } from "@/shared/personas";
import type { MessageMetadata, RoomSettings } from "@/shared/protocol";
import type { ExportedMemory } from "@/shared/transfer";

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
