/**
 * A room's memory in exports and imports: the pins and the summaries in use
 * travel with the messages, and an import checks them as strictly as the
 * routes that write them, with the file's message ids mapped to the room's
 * new ones. A summary must name messages of the file (it stands in for
 * them); a pin's message may be missing (its text is the pin). Pure.
 */
import { AppError } from "@/server/app-error";
import { MAX_AUTHOR_LENGTH } from "@/shared/constants";
import { MAX_PINS_PER_ROOM, PinText } from "@/shared/memory";
import type { ExportedMemory, ExportedPin, ExportedSummary } from "@/shared/transfer";

/** Summaries an import takes (a room folds its own far below this). */
export const MAX_IMPORTED_SUMMARIES = 200;
/** Characters of one imported summary. */
const MAX_SUMMARY_LENGTH = 16_000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const bad = (message: string) => new AppError("bad_request:import", 422, message);

function time(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw bad(`${where} must be a time (ms).`);
  return Math.floor(value);
}

function pin(raw: unknown, where: string, idOf: (id: string) => string | undefined): ExportedPin {
  if (!isObject(raw)) throw bad(`${where} must be an object.`);
  const text = PinText.safeParse(raw.text);
  if (!text.success) throw bad(`${where}.text: ${text.error.issues[0].message}.`);
  const name = isObject(raw.author) ? raw.author.name : undefined;
  if (typeof name !== "string" || !name.trim() || name.length > MAX_AUTHOR_LENGTH) {
    throw bad(`${where}.author.name must be a name of 1-${MAX_AUTHOR_LENGTH} characters.`);
  }
  if (raw.messageId !== null && raw.messageId !== undefined && typeof raw.messageId !== "string") {
    throw bad(`${where}.messageId must be null or a message id.`);
  }
  return {
    text: text.data,
    messageId: typeof raw.messageId === "string" ? (idOf(raw.messageId) ?? null) : null,
    author: { name: name.trim() },
    createdAt: time(raw.createdAt, `${where}.createdAt`),
    status: raw.status === "proposed" ? "proposed" : "active",
    truncated: raw.truncated === true
  };
}

function summary(raw: unknown, where: string, idOf: (id: string) => string | undefined): ExportedSummary {
  if (!isObject(raw)) throw bad(`${where} must be an object.`);
  const from = typeof raw.fromMessageId === "string" ? idOf(raw.fromMessageId) : undefined;
  const to = typeof raw.toMessageId === "string" ? idOf(raw.toMessageId) : undefined;
  if (!from || !to) throw bad(`${where}: fromMessageId and toMessageId must name messages of the file.`);
  if (typeof raw.text !== "string" || !raw.text.trim() || raw.text.length > MAX_SUMMARY_LENGTH) {
    throw bad(`${where}.text must be 1-${MAX_SUMMARY_LENGTH} characters.`);
  }
  const count = raw.messageCount;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1) {
    throw bad(`${where}.messageCount must be a positive whole number.`);
  }
  const level = raw.level;
  if (typeof level !== "number" || !Number.isInteger(level) || level < 0 || level > 64) {
    throw bad(`${where}.level must be a whole number from 0 to 64.`);
  }
  if (typeof raw.model !== "string" || raw.model.length > 100) throw bad(`${where}.model must be a model name.`);
  return {
    fromMessageId: from,
    toMessageId: to,
    messageCount: count,
    level,
    text: raw.text,
    model: raw.model,
    truncated: raw.truncated === true,
    createdAt: time(raw.createdAt, `${where}.createdAt`)
  };
}

/** The memory of an import file, checked, with message ids mapped by `idOf`; absent means none. */
export function parseExportedMemory(raw: unknown, idOf: (id: string) => string | undefined): ExportedMemory {
  if (raw === undefined) return { pins: [], summaries: [] };
  if (!isObject(raw)) throw bad("memory must be an object.");
  const pins = raw.pins ?? [];
  const summaries = raw.summaries ?? [];
  if (!Array.isArray(pins) || !Array.isArray(summaries)) throw bad("memory.pins and memory.summaries must be arrays.");
  if (pins.length > MAX_PINS_PER_ROOM)
    throw bad(`memory.pins holds ${pins.length}; a room keeps at most ${MAX_PINS_PER_ROOM}.`);
  if (summaries.length > MAX_IMPORTED_SUMMARIES) {
    throw bad(`memory.summaries holds ${summaries.length}; an import takes at most ${MAX_IMPORTED_SUMMARIES}.`);
  }
  return {
    pins: pins.map((p, i) => pin(p, `memory.pins[${i}]`, idOf)),
    summaries: summaries.map((s, i) => summary(s, `memory.summaries[${i}]`, idOf))
  };
}
