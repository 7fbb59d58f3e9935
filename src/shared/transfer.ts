/** Wire types of export, import and fork. */
import { z } from "zod";
import { DEFAULT_ROOM_FILE_QUOTA_BYTES } from "./constants";
import type { Persona } from "./personas";
import type { ChatMessage, RoomSettings } from "./protocol";

/** Our lossless room export: `format` and `version` tell importers what they hold. */
export const ROOM_EXPORT_FORMAT = "rooms.room-export";
export const ROOM_EXPORT_VERSION = 1;
/** Import files are read whole and validated before any room is made. */
export const MAX_IMPORT_BYTES = 32 * 1024 * 1024;
export const MAX_ROOMS_PER_IMPORT = 200;
/**
 * A `.zip` import (a room with its files) may be larger: the Worker keeps it
 * in R2 while it reads it, never in memory. Its files are held to the room's
 * quota and each file's limit on their own; this bounds the archive around
 * them: a room's default quota of files, as much again for their indexes
 * (a text's passages are about its size), and the transcript.
 */
export const MAX_ZIP_IMPORT_BYTES = 2 * DEFAULT_ROOM_FILE_QUOTA_BYTES + MAX_IMPORT_BYTES;

export const ExportQuery = z.strictObject({
  format: z.enum(["json", "markdown", "zip"], { error: "format must be json, markdown or zip" }).default("json")
});

/** The head of an export: everything but the messages, which stream after it. */
export interface RoomExportHeader {
  format: typeof ROOM_EXPORT_FORMAT;
  version: typeof ROOM_EXPORT_VERSION;
  exportedAt: string;
  room: {
    id: string;
    name: string;
    settings: RoomSettings;
    personas: Persona[];
    origin: RoomOrigin | null;
  };
}

/** A message off the room's transcript (an edit's or regeneration's earlier version, or what followed it). */
export interface ExportedVersion {
  parentId: string | null;
  message: ChatMessage;
}

/** A pin as exports carry it (an import writes it under the reserved author id `imported`). */
export interface ExportedPin {
  text: string;
  messageId: string | null;
  author: { name: string };
  createdAt: number;
  status: "active" | "proposed";
  truncated: boolean;
}

/** A summary in use, with the span of exported messages it stands in for. */
export interface ExportedSummary {
  fromMessageId: string;
  toMessageId: string;
  messageCount: number;
  level: number;
  text: string;
  model: string;
  truncated: boolean;
  createdAt: number;
}

/** A room's memory in an export (`memory`, after the messages; absent when the room has none). */
export interface ExportedMemory {
  pins: ExportedPin[];
  summaries: ExportedSummary[];
}

/** Where a forked room came from. */
export interface RoomOrigin {
  roomId: string;
  roomName: string;
  messageId: string;
}

export const ForkBody = z.strictObject({
  messageId: z.string({ error: "messageId must be a string" }).min(1, "messageId must not be empty").max(128)
});

/**
 * A message an import shortened to fit a room's caps (MAX_MESSAGE_LENGTH
 * for a person's message, a longer cap for an answer's text): which, where
 * in the transcript (1 = the first message), and how long it was and is.
 */
export interface TruncatedMessage {
  messageId: string;
  position: number;
  role: "user" | "assistant";
  /** Characters (UTF-16 code units) of its text in the file. */
  originalLength: number;
  /** Characters kept in the room. */
  keptLength: number;
}

export interface ImportResult {
  rooms: Array<{ id: string; name: string; messageCount: number; truncated: TruncatedMessage[] }>;
}
