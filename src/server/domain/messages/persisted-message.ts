/**
 * The one shape a stored message may have. Every message the room persists
 * passes through `normalizeMessage` (AIChatAgent's persistence hook), and
 * every stored message read back for REST or a turn passes through it again,
 * so rows written before these rules existed cannot break a room either.
 *
 * - role is "user" or "assistant"; anything else is not a message we keep;
 * - parts are of types the app renders (text, reasoning, step markers,
 *   sources, our tools); a user message is text and the room's own file parts (its file routes, never bytes);
 * - metadata holds only the fields the server writes, each of its type and
 *   bounded; anything else (client claims, 20,000-level nesting) is dropped
 *   without being walked;
 * - timestamps are the server's: one outside [MIN_TIMESTAMP, now + skew]
 *   becomes now;
 * - sizes and nesting depth are bounded; tool payloads past the bounds are
 *   replaced by a note saying so, never left to fail a read.
 */
import type { UIMessage } from "ai";
import { MAX_AUTHOR_LENGTH, MAX_FILE_NAME_LENGTH, MAX_MESSAGE_LENGTH, MAX_MODEL_NAME_LENGTH } from "@/shared/constants";
import { isAnswerErrorCode } from "@/shared/errors";
import { FILE_URL_PATTERN } from "@/shared/files";
import { MessageAuthor } from "@/shared/identity";
import type { MessageMetadata, TokenUsage } from "@/shared/protocol";
import { readReplyRef } from "@/shared/replies";

export const PERSIST_LIMITS = {
  maxIdLength: 128,
  maxParts: 200,
  /** Text of one part of an answer (a user message is bounded by MAX_MESSAGE_LENGTH). */
  maxPartTextLength: 200_000,
  /** Serialized bytes of one non-text part (tool input and output, sources). */
  maxPartBytes: 64 * 1024,
  /** Nesting depth of one non-text part. */
  maxPartDepth: 32,
  maxErrorLength: 2_000,
  /** Server clocks may disagree a little; anything further in the future is not a timestamp of ours. */
  maxClockSkewMs: 5 * 60_000
} as const;

/** 2024-01-01: nothing in a room predates the app. */
export const MIN_TIMESTAMP = Date.UTC(2024, 0, 1);

const PLAIN_PART_TYPES = new Set(["text", "reasoning"]);
const STRUCTURED_PART_TYPES = new Set(["step-start", "source-url", "source-document", "file", "dynamic-tool"]);
const TOOL_PART_TYPE = /^tool-[A-Za-z0-9_-]{1,64}$/;

export const OVERSIZED_PART_NOTE = "[This part was too large or too deeply nested to keep.]";

type Part = UIMessage["parts"][number];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const boundedString = (value: unknown, max: number): string | undefined =>
  typeof value === "string" && value.length > 0 ? value.slice(0, max) : undefined;

/**
 * Whether `value` fits the depth and byte bounds. Iterative and early-exit,
 * so a 20,000-level structure costs as much as its first 33 levels.
 */
export function fitsBounds(value: unknown, maxDepth: number, maxBytes: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let bytes = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: current, depth } = next;
    if (depth > maxDepth) return false;
    if (typeof current === "string") bytes += current.length + 2;
    else if (current === null || typeof current !== "object") bytes += 8;
    else {
      const entries = Array.isArray(current) ? current : Object.entries(current as object);
      bytes += 2;
      for (const entry of entries) {
        if (Array.isArray(current)) stack.push({ value: entry, depth: depth + 1 });
        else {
          const [key, child] = entry as [string, unknown];
          bytes += key.length + 3;
          stack.push({ value: child, depth: depth + 1 });
        }
      }
    }
    if (bytes > maxBytes) return false;
  }
  return true;
}

/** A timestamp of ours, or `now` in its place. */
function serverTimestamp(value: unknown, now: number): number {
  return typeof value === "number" &&
    Number.isFinite(value) &&
    value >= MIN_TIMESTAMP &&
    value <= now + PERSIST_LIMITS.maxClockSkewMs
    ? value
    : now;
}

function normalizeUsage(value: unknown): TokenUsage | undefined {
  if (!isRecord(value)) return undefined;
  const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0);
  return {
    inputTokens: count(value.inputTokens),
    outputTokens: count(value.outputTokens),
    totalTokens: count(value.totalTokens)
  };
}

/** `{ id, name }` of the shape the server writes (shared/identity.ts), or nothing. */
function normalizeRef(value: unknown): { id: string; name: string } | undefined {
  // Most refs are absent (every answer has no stopper, most no persona), and
  // a failing parse builds an issue for nothing: only objects go to the schema.
  if (!isRecord(value)) return undefined;
  const parsed = MessageAuthor.safeParse(value);
  return parsed.success ? { id: parsed.data.id, name: parsed.data.name } : undefined;
}

/** Keeps only the fields the server writes, each of its type; never walks anything else. */
function normalizeMetadata(raw: unknown, role: "user" | "assistant", now: number): MessageMetadata {
  const source = isRecord(raw) ? raw : {};
  const metadata: MessageMetadata = { createdAt: serverTimestamp(source.createdAt, now) };
  // Messages written before identities carry a bare name (see authorName).
  const author =
    normalizeRef(source.author) ??
    boundedString(typeof source.author === "string" ? source.author.trim() : undefined, MAX_AUTHOR_LENGTH);
  if (author) metadata.author = author as MessageMetadata["author"];
  for (const key of ["versionOf", "answers"] as const) {
    const id = boundedString(source[key], PERSIST_LIMITS.maxIdLength);
    if (id) metadata[key] = id;
  }
  if (typeof source.version === "number" && Number.isInteger(source.version) && source.version > 1) {
    metadata.version = Math.min(source.version, 1_000_000);
  }
  if (role === "user" && source.noReply === true) metadata.noReply = true;
  if (role === "user" && source.withdrawn === true) metadata.withdrawn = true;
  const aside = isRecord(source.aside) ? source.aside.sharedAt : undefined;
  if (typeof aside === "number" && Number.isFinite(aside)) metadata.aside = { sharedAt: aside };
  const replyTo = role === "user" ? readReplyRef(source.replyTo) : undefined;
  if (replyTo) metadata.replyTo = replyTo;
  if (role === "assistant") {
    const persona = normalizeRef(source.persona);
    if (persona) metadata.persona = persona;
    if (source.panel === "answer" || source.panel === "synthesis") metadata.panel = source.panel;
    const model = boundedString(source.model, MAX_MODEL_NAME_LENGTH);
    if (model) metadata.model = model;
    if (typeof source.offline === "boolean") metadata.offline = source.offline;
    const usage = normalizeUsage(source.usage);
    if (usage) metadata.usage = usage;
    if (source.stopped === true) metadata.stopped = true;
    const stoppedBy = source.stopped === true ? normalizeRef(source.stoppedBy) : undefined;
    if (stoppedBy) metadata.stoppedBy = stoppedBy;
    const error = boundedString(source.error, PERSIST_LIMITS.maxErrorLength);
    if (error) metadata.error = error;
    // Only codes of the one error model (src/shared/errors.ts), which clients parse.
    if (isAnswerErrorCode(source.errorCode)) metadata.errorCode = source.errorCode;
    const traceId = boundedString(source.traceId, 64);
    if (traceId) metadata.traceId = traceId;
    if (isRecord(source.task)) {
      const id = boundedString(source.task.id, PERSIST_LIMITS.maxIdLength);
      const asked = boundedString(source.task.asked, PERSIST_LIMITS.maxErrorLength);
      const status = boundedString(source.task.status, 32);
      if (id) metadata.task = { id, asked: asked ?? "", status: status ?? "completed" };
    }
  }
  return metadata;
}

function normalizePart(part: unknown, role: "user" | "assistant"): Part | null {
  if (!isRecord(part) || typeof part.type !== "string") return null;
  const { type } = part;
  if (PLAIN_PART_TYPES.has(type)) {
    if (typeof part.text !== "string") return null;
    if (role === "user" && type !== "text") return null;
    const max = role === "user" ? MAX_MESSAGE_LENGTH : PERSIST_LIMITS.maxPartTextLength;
    if (part.text.length <= max && fitsBounds(part, 4, max * 2 + 4096)) return part as Part;
    return { type, text: part.text.slice(0, max) } as Part;
  }
  if (role === "user") return type === "file" ? fileRef(part) : null;
  if (!STRUCTURED_PART_TYPES.has(type) && !TOOL_PART_TYPE.test(type)) return null;
  if (fitsBounds(part, PERSIST_LIMITS.maxPartDepth, PERSIST_LIMITS.maxPartBytes)) return part as Part;
  return { type: "text", text: OVERSIZED_PART_NOTE };
}

/** A user's file part: one of a room's files by its route (the server wrote it; see domain/files). */
function fileRef(part: Record<string, unknown>): Part | null {
  if (typeof part.url !== "string" || !FILE_URL_PATTERN.test(part.url)) return null;
  const mediaType = boundedString(part.mediaType, 100);
  if (!mediaType) return null;
  return {
    type: "file",
    url: part.url,
    mediaType,
    filename: boundedString(part.filename, MAX_FILE_NAME_LENGTH) ?? "file"
  };
}

/**
 * The stored form of a message, or null when it is not a message the app
 * keeps (no id, a role other than user or assistant, no parts array).
 */
export function normalizeMessage(raw: unknown, now: number): UIMessage | null {
  if (!isKeptMessage(raw)) return null;
  const { id, role } = raw;
  const parts: Part[] = [];
  for (const part of raw.parts.slice(0, PERSIST_LIMITS.maxParts)) {
    const kept = normalizePart(part, role);
    if (kept) parts.push(kept);
  }
  return { id, role, parts, metadata: normalizeMetadata(raw.metadata, role, now) };
}

/**
 * Whether `normalizeMessage` keeps `raw` at all (an id, a role of ours, a
 * parts array), without normalising it: the write path's filter asks only
 * this, of every message of the window on every save.
 */
export function isKeptMessage(
  raw: unknown
): raw is Record<string, unknown> & { id: string; role: "user" | "assistant"; parts: unknown[] } {
  return (
    isRecord(raw) &&
    typeof raw.id === "string" &&
    raw.id.length > 0 &&
    raw.id.length <= PERSIST_LIMITS.maxIdLength &&
    (raw.role === "user" || raw.role === "assistant") &&
    Array.isArray(raw.parts)
  );
}

/**
 * What REST and the client get for a stored row that is not a valid
 * message: its id, kept visible, and why it cannot be shown.
 */
export function unreadableMessage(raw: unknown, now: number): UIMessage {
  const id =
    isRecord(raw) && typeof raw.id === "string" && raw.id.length > 0
      ? raw.id.slice(0, PERSIST_LIMITS.maxIdLength)
      : crypto.randomUUID();
  return {
    id,
    role: "assistant",
    parts: [],
    metadata: { createdAt: now, error: "This stored message cannot be read." }
  };
}
