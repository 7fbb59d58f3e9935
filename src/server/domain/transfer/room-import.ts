/**
 * Import files, validated whole before any room is made: our own export
 * (`rooms.room-export`) and the `conversations.json` of a ChatGPT data
 * export. Pure: text in, rooms out, or an AppError naming what is wrong.
 *
 * Authorship stays server-decided: an imported question keeps its author's
 * name as data, under the reserved id `imported`, so no file can make a
 * message appear written by a real member of this server.
 */

import { AppError } from "@/server/app-error";
import { parseExportedMemory } from "@/server/domain/memory/memory-transfer";
import { normalizeMessage } from "@/server/domain/messages/persisted-message";
import { MAX_AUTHOR_LENGTH } from "@/shared/constants";
import { CreatePersonaBody, MAX_PERSONAS_PER_ROOM, type PersonaRef } from "@/shared/personas";
import type { MessageMetadata, RoomSettings } from "@/shared/protocol";
import { CreateRoomBody } from "@/shared/protocol";
import { readReplyRef } from "@/shared/replies";
import { MAX_ROOMS_PER_IMPORT, ROOM_EXPORT_FORMAT, ROOM_EXPORT_VERSION } from "@/shared/transfer";
import { chatGptConversations, isChatGptExport } from "./chatgpt-import";
import {
  badImport,
  IMPORTED_AUTHOR_ID,
  type ImportedMessage,
  type ImportedPersona,
  type ImportedRoom,
  type ImportedVersion,
  remapIds
} from "./imported-room";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export function parseImportFile(text: string): ImportedRoom[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new AppError(
      "bad_request:json",
      400,
      `The file is not valid JSON (${error instanceof Error ? error.message : "parse error"}).`
    );
  }
  let rooms: ImportedRoom[];
  if (isObject(data) && data.format === ROOM_EXPORT_FORMAT) rooms = [fromRoomExport(data)];
  else if (isChatGptExport(data)) rooms = chatGptConversations(data);
  else {
    throw badImport(
      `Unrecognised file: expected a Rooms export (format "${ROOM_EXPORT_FORMAT}") or a ChatGPT conversations.json (an array of conversations with a "mapping").`
    );
  }
  if (rooms.length === 0) throw badImport("The file holds no conversations to import.");
  if (rooms.length > MAX_ROOMS_PER_IMPORT) {
    throw badImport(`The file holds ${rooms.length} conversations; one import takes at most ${MAX_ROOMS_PER_IMPORT}.`);
  }
  return rooms;
}

function fromRoomExport(data: Json): ImportedRoom {
  if (data.version !== ROOM_EXPORT_VERSION) {
    throw badImport(
      `Unsupported export version ${JSON.stringify(data.version)}; this server reads version ${ROOM_EXPORT_VERSION}.`
    );
  }
  if (!isObject(data.room)) throw badImport("room must be an object.");
  const settings = roomSettings(
    isObject(data.room.settings) ? data.room.settings : { name: data.room.name },
    "room.settings"
  );
  if (!Array.isArray(data.messages)) throw badImport("messages must be an array.");
  const messages = data.messages.map((m, i) => message(m, `messages[${i}]`));
  const versions = versionList(data.versions, messages);
  const remapped = remapIds([...messages, ...versions.map((v) => v.message)]);
  const idOf = new Map([...messages, ...versions.map((v) => v.message)].map((m, i) => [m.id, remapped[i].id]));
  return {
    settings,
    personas: personas(data.room.personas),
    messages: remapped.slice(0, messages.length),
    versions: versions.map((v, i) => ({
      parentId: v.parentId === null ? null : (idOf.get(v.parentId) as string),
      message: remapped[messages.length + i]
    })),
    memory: parseExportedMemory(data.memory, (id) => idOf.get(id))
  };
}

/** Earlier versions, each under a transcript message or an earlier entry (so the tree has no cycles); absent means none. */
function versionList(raw: unknown, messages: ImportedMessage[]): ImportedVersion[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw badImport("versions must be an array.");
  const known = new Set(messages.map((m) => m.id));
  return raw.map((entry, i) => {
    const where = `versions[${i}]`;
    if (!isObject(entry)) throw badImport(`${where} must be an object.`);
    const parentId = entry.parentId;
    if (parentId !== null && (typeof parentId !== "string" || !known.has(parentId))) {
      throw badImport(`${where}.parentId must be null or the id of a message or an earlier version.`);
    }
    const version = message(entry.message, `${where}.message`);
    known.add(version.id);
    return { parentId, message: version };
  });
}

/** The roster, checked as REST checks a new persona; absent means none. */
function personas(raw: unknown): ImportedPersona[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw badImport("room.personas must be an array.");
  if (raw.length > MAX_PERSONAS_PER_ROOM) {
    throw badImport(`room.personas holds ${raw.length} personas; a room holds at most ${MAX_PERSONAS_PER_ROOM}.`);
  }
  const names = new Set<string>();
  return raw.map((entry, i) => {
    const where = `room.personas[${i}]`;
    if (!isObject(entry)) throw badImport(`${where} must be an object.`);
    if (typeof entry.id !== "string" || entry.id.length === 0 || entry.id.length > 128) {
      throw badImport(`${where}.id must be a string of 1-128 characters.`);
    }
    const parsed = CreatePersonaBody.safeParse({
      name: entry.name,
      ...Object.fromEntries(
        (["colour", "systemPrompt", "model", "temperature", "tools"] as const)
          .filter((key) => entry[key] !== undefined)
          .map((key) => [key, entry[key]])
      )
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badImport(`${where}.${issue.path.join(".")}: ${issue.message}.`);
    }
    const key = parsed.data.name.toLowerCase();
    if (names.has(key)) throw badImport(`${where}.name: "${parsed.data.name}" appears twice.`);
    names.add(key);
    return { id: entry.id, body: parsed.data };
  });
}

/**
 * Answers name the persona that wrote them: point those at the persona's new
 * id in the imported room. An answer by a persona the file no longer lists
 * keeps the name it was written under.
 */
export function withPersonaIds(messages: ImportedMessage[], ids: ReadonlyMap<string, PersonaRef>): ImportedMessage[] {
  if (ids.size === 0) return messages;
  return messages.map((m) => {
    const persona = m.metadata.persona ? ids.get(m.metadata.persona.id) : undefined;
    return persona ? { ...m, metadata: { ...m.metadata, persona } } : m;
  });
}

function roomSettings(raw: Json, where: string): RoomSettings {
  const parsed = CreateRoomBody.safeParse({
    name: raw.name,
    ...(raw.systemPrompt !== undefined ? { systemPrompt: raw.systemPrompt } : {}),
    ...(raw.model !== undefined ? { model: raw.model } : {}),
    ...(raw.temperature !== undefined ? { temperature: raw.temperature } : {})
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badImport(`${where}.${issue.path.join(".")}: ${issue.message}.`);
  }
  return {
    name: parsed.data.name,
    systemPrompt: parsed.data.systemPrompt ?? "",
    model: parsed.data.model ?? null,
    temperature: parsed.data.temperature ?? null
  };
}

function message(raw: unknown, where: string): ImportedMessage {
  if (!isObject(raw)) throw badImport(`${where} must be an object.`);
  if (typeof raw.id !== "string" || raw.id.length === 0 || raw.id.length > 128) {
    throw badImport(`${where}.id must be a string of 1-128 characters.`);
  }
  if (raw.role !== "user" && raw.role !== "assistant") throw badImport(`${where}.role must be "user" or "assistant".`);
  if (!Array.isArray(raw.parts)) throw badImport(`${where}.parts must be an array.`);
  const parts = raw.parts.map((part, j) => {
    if (!isObject(part) || typeof part.type !== "string" || part.type.length === 0) {
      throw badImport(`${where}.parts[${j}] must be an object with a string type.`);
    }
    if ((part.type === "text" || part.type === "reasoning") && typeof part.text !== "string") {
      throw badImport(`${where}.parts[${j}].text must be a string.`);
    }
    return part as ImportedMessage["parts"][number];
  });
  const checked = {
    id: raw.id,
    role: raw.role,
    parts,
    metadata: metadata(raw.metadata, raw.role, `${where}.metadata`)
  };
  // The same rules as every other write to a room (persisted-message.ts).
  const stored = normalizeMessage(checked, Date.now());
  if (!stored) throw badImport(`${where} is not a message this server can store.`);
  return stored as unknown as ImportedMessage;
}

/** Only the keys this server writes, each checked; anything else is dropped. */
function metadata(raw: unknown, role: "user" | "assistant", where: string): MessageMetadata {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw badImport(`${where} must be an object.`);
  const out: MessageMetadata = {};
  const num = (key: string) => {
    const v = raw[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v)) throw badImport(`${where}.${key} must be a number.`);
    return v;
  };
  const str = (key: string, max = 10_000) => {
    const v = raw[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || v.length > max)
      throw badImport(`${where}.${key} must be a string of at most ${max} characters.`);
    return v;
  };
  const createdAt = num("createdAt");
  if (createdAt !== undefined) out.createdAt = createdAt;
  // Which message an edit or regeneration replaced, and its number.
  const versionOf = str("versionOf", 128);
  if (versionOf !== undefined) out.versionOf = versionOf;
  const version = num("version");
  if (version !== undefined) {
    if (!Number.isInteger(version) || version < 2) throw badImport(`${where}.version must be a whole number from 2.`);
    out.version = version;
  }
  // A shared aside keeps its mark (shared/asides.ts).
  const sharedAt = isObject(raw.aside) ? raw.aside.sharedAt : undefined;
  if (typeof sharedAt === "number" && Number.isFinite(sharedAt)) out.aside = { sharedAt };
  if (role === "user") {
    const name = typeof raw.author === "string" ? raw.author : isObject(raw.author) ? raw.author.name : undefined;
    if (raw.author !== undefined && (typeof name !== "string" || name.trim().length === 0)) {
      throw badImport(`${where}.author must be a name or { id, name }.`);
    }
    if (typeof name === "string")
      out.author = { id: IMPORTED_AUTHOR_ID, name: name.trim().slice(0, MAX_AUTHOR_LENGTH) };
    if (raw.noReply === true) out.noReply = true;
    if (raw.withdrawn === true) out.withdrawn = true;
    // A reply's quote, kept as the room wrote it; its id follows the import's new ids (imported-room.ts).
    const replyTo = readReplyRef(raw.replyTo);
    if (replyTo) out.replyTo = replyTo;
  } else {
    const model = str("model", 200);
    if (model !== undefined) out.model = model;
    if (typeof raw.offline === "boolean") out.offline = raw.offline;
    if (raw.stopped === true) out.stopped = true;
    const error = str("error");
    if (error !== undefined) out.error = error;
    const answers = str("answers", 128);
    if (answers !== undefined) out.answers = answers;
    if (raw.usage !== undefined) {
      const u = raw.usage;
      if (
        !isObject(u) ||
        ![u.inputTokens, u.outputTokens, u.totalTokens].every((n) => typeof n === "number" && n >= 0)
      ) {
        throw badImport(`${where}.usage must hold inputTokens, outputTokens and totalTokens as numbers.`);
      }
      out.usage = {
        inputTokens: u.inputTokens as number,
        outputTokens: u.outputTokens as number,
        totalTokens: u.totalTokens as number
      };
    }
    if (isObject(raw.persona) && typeof raw.persona.id === "string" && typeof raw.persona.name === "string") {
      out.persona = { id: raw.persona.id.slice(0, 128), name: raw.persona.name.slice(0, 40) };
    }
  }
  // The file's key order, so an export of the imported room reads the same.
  const kept = out as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(raw)
      .filter((key) => key in kept)
      .map((key) => [key, kept[key]])
  ) as MessageMetadata;
}
