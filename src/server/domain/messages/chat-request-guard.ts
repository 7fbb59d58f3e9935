/**
 * What a room accepts from a client's chat request. The AIChatAgent protocol
 * has the client send its transcript with every message, and the framework
 * would store it as sent, and on an edit or regenerate delete whatever the
 * client's list lacks. Clients are untrusted and often hold only the newest
 * page, so the room rebuilds the request: the client contributes only which
 * message is new, edited or regenerated, and the text of a new or edited
 * user message (bounded). A new message goes to the framework alone; an edit
 * or a regeneration with the room's own transcript up to it. No one can
 * alter history by sending it back changed, and no stale client can delete
 * what it never saw.
 *
 * Nothing is deleted either: an edit or a regeneration becomes a new
 * version beside the message it replaces (a sibling in the room's message
 * tree), which the room writes before the turn (see `branch` below). Only
 * the author may edit a message; only the latest answer can be regenerated.
 */
import type { UIMessage } from "ai";
import { MAX_FILES_PER_MESSAGE } from "@/shared/constants";
import type { FileRef } from "@/shared/files";
import { authorId, type MessageAuthor } from "@/shared/identity";
import type { MessageMetadata } from "@/shared/protocol";
import { type ReplyRef, readReplyRef } from "@/shared/replies";

/**
 * A new version to write beside the message it replaces before the turn:
 * - an edit: `message` (a new id) under `parentId`;
 * - a regeneration: an empty answer `message` under `parentId`, which the
 *   turn fills in (its id is the answer's id).
 * `path` is the room's transcript that the turn then sees, ending at the
 * parent (regeneration) or at the new message (edit).
 */
export interface Branch {
  kind: "edit" | "regenerate";
  parentId: string | null;
  message: UIMessage;
  path: UIMessage[];
}

export type GuardResult =
  | {
      ok: true;
      body: string;
      newText: string | null;
      /** The message this request sends (a new version's id, for an edit) or asks to answer again. */
      messageId: string;
      /** The client's W3C trace context, unchecked (see domain/tracing/trace-spans.ts). */
      traceparent: string | null;
      branch?: Branch;
    }
  | {
      ok: false;
      code:
        | "bad_request:body"
        | "payload_too_large:body"
        | "forbidden:not_author"
        | "conflict:not_latest"
        | "not_found:file";
      message: string;
    };

export interface GuardLimits {
  maxMessageLength: number;
  maxMessages: number;
  /**
   * A file part's canonical form when its url names a file of this room
   * (room/room-files.ts), else null. Absent: messages are text only.
   */
  fileOf?: (url: string) => FileRef | null;
  /** The message a new message or an edit replies to, as the room found it (domain/messages/reply-rules.ts). */
  replyTo?: ReplyRef;
}

const MAX_ID_LENGTH = 128;

function fail(message: string, code: Extract<GuardResult, { ok: false }>["code"] = "bad_request:body"): GuardResult {
  return { ok: false, code, message };
}

/** Who wrote an answer, when it was a persona: `{ persona: { id, name } }`, else nothing. */
function personaOf(message: UIMessage): Pick<MessageMetadata, "persona"> {
  const persona = (message.metadata as MessageMetadata | undefined)?.persona;
  return persona && typeof persona.id === "string" && typeof persona.name === "string"
    ? { persona: { id: persona.id, name: persona.name } }
    : {};
}

/** How many versions a message's position holds, counting it (metadata written at creation). */
function versionNumber(message: UIMessage): number {
  const version = (message.metadata as MessageMetadata | undefined)?.version;
  return typeof version === "number" && Number.isInteger(version) && version > 0 ? version : 1;
}

/** `{ replyTo }` when `source` holds a reply's quote (the room's lookup, or a stored message's metadata). */
function replyOf(source: unknown): Pick<MessageMetadata, "replyTo"> {
  const replyTo = readReplyRef((source as { replyTo?: unknown } | undefined)?.replyTo);
  return replyTo ? { replyTo } : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasBoundedId(message: unknown): boolean {
  return (
    isRecord(message) && typeof message.id === "string" && message.id.length > 0 && message.id.length <= MAX_ID_LENGTH
  );
}

/**
 * `author` is who sent the frame, as the server knows it: it becomes the
 * message's author, whatever metadata the client put on the message.
 */
export function guardChatRequest(
  rawBody: unknown,
  transcript: readonly UIMessage[],
  limits: GuardLimits,
  author: MessageAuthor | null = null,
  now = Date.now(),
  newId: () => string = () => crypto.randomUUID()
): GuardResult {
  if (typeof rawBody !== "string") return fail("A chat request needs a JSON body.");
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return fail("The chat request body is not valid JSON.");
  }
  if (!isRecord(body) || !Array.isArray(body.messages)) return fail("A chat request needs a messages array.");
  const trigger = body.trigger ?? "submit-message";
  if (trigger !== "submit-message" && trigger !== "regenerate-message") return fail("Unknown chat trigger.");
  const incoming = body.messages as unknown[];
  if (incoming.length === 0) return fail("A chat request needs at least one message.");
  if (incoming.length > limits.maxMessages) {
    return fail(`A chat request may carry at most ${limits.maxMessages} messages.`, "payload_too_large:body");
  }
  if (!incoming.every(hasBoundedId)) return fail("Every message needs an id of 1 to 128 characters.");
  const messages = incoming as Array<Record<string, unknown> & { id: string }>;

  const indexOf = new Map(transcript.map((m, i) => [m.id, i]));
  const last = messages[messages.length - 1];
  const traceparent = typeof body.traceparent === "string" ? body.traceparent.slice(0, 512) : null;

  if (trigger === "regenerate-message") {
    // The client names the message before the answer it wants again.
    const at = indexOf.get(last.id);
    if (at === undefined)
      return fail("That message is not in this room's recent history, so it cannot be regenerated.");
    const body = (messages: UIMessage[]) => JSON.stringify({ messages, trigger });
    if (at === transcript.length - 1) {
      // Nothing answers it yet (e.g. the answer failed before it began): just answer.
      if (transcript[at].role !== "user") return fail("Only an answer can be regenerated.");
      return { ok: true, body: body(transcript.slice(0, at + 1)), newText: null, messageId: last.id, traceparent };
    }
    const replaced = transcript[at + 1];
    if (at + 1 !== transcript.length - 1 || replaced.role !== "assistant") {
      return fail("Only the latest answer can be regenerated.", "conflict:not_latest");
    }
    const path = transcript.slice(0, at + 1);
    const message: UIMessage = {
      id: newId(),
      role: "assistant",
      parts: [],
      metadata: {
        createdAt: now,
        versionOf: replaced.id,
        version: versionNumber(replaced) + 1,
        // A persona's answer is asked again of that persona (room/room-personas.ts).
        ...personaOf(replaced)
      }
    };
    return {
      ok: true,
      body: body(path),
      newText: null,
      messageId: last.id,
      traceparent,
      branch: { kind: "regenerate", parentId: transcript[at].id, message, path }
    };
  }

  const at = indexOf.get(last.id);
  if (last.role !== "user" || (at !== undefined && transcript[at].role !== "user"))
    return fail("Only a user message can be sent.");
  const parts = Array.isArray(last.parts) ? last.parts : [];
  const texts: string[] = [];
  const files: FileRef[] = [];
  for (const part of parts) {
    if (isRecord(part) && part.type === "file" && limits.fileOf) {
      // Only a file of this room, by its route; what the part says of it is replaced by the record's.
      const file = typeof part.url === "string" ? limits.fileOf(part.url) : null;
      if (!file) return fail("A file part must name a file of this room that was not deleted.", "not_found:file");
      if (!files.some((f) => f.url === file.url)) files.push(file);
      continue;
    }
    if (!isRecord(part) || part.type !== "text" || typeof part.text !== "string") {
      return fail(
        limits.fileOf
          ? "A message may contain text and this room's files only."
          : "A message may contain text parts only."
      );
    }
    texts.push(part.text);
  }
  if (files.length > MAX_FILES_PER_MESSAGE) return fail(`A message carries at most ${MAX_FILES_PER_MESSAGE} files.`);
  const text = texts.join("");
  // Files may go alone (an image and no words); nothing at all may not.
  if (!text.trim() && files.length === 0) return fail("The message is empty.");
  if (text.length > limits.maxMessageLength) {
    return fail(`A message may be at most ${limits.maxMessageLength} characters.`, "payload_too_large:body");
  }
  // Nothing the client sent as metadata is kept; a reply's quote is the room's (domain/messages/reply-rules.ts).
  const metadata: MessageMetadata = { ...(author ? { author } : {}), createdAt: now, ...replyOf(limits) };
  if (at === undefined) {
    // A new message follows the whole transcript, which the room already
    // holds: the framework is handed the new message alone. Handed the
    // transcript too, it would parse, reconcile (quadratic in its length),
    // compare and broadcast every message of it twice, to store one row.
    const message: UIMessage = { id: last.id, role: "user", parts: [{ type: "text", text }, ...files], metadata };
    return {
      ok: true,
      body: JSON.stringify({ messages: [message], trigger }),
      newText: text,
      messageId: last.id,
      traceparent
    };
  }
  // An edit: a new version beside the original, which stays as it was.
  const original = transcript[at];
  const ownerId = authorId((original.metadata as MessageMetadata | undefined)?.author);
  if (!author || ownerId === null || ownerId !== author.id) {
    return fail("Only the person who wrote a message can edit it.", "forbidden:not_author");
  }
  const message: UIMessage = {
    id: newId(),
    role: "user",
    parts: [{ type: "text", text }, ...files],
    // An edit of a reply stays a reply (to the message it names, if it names one).
    metadata: {
      ...replyOf(original.metadata),
      ...metadata,
      versionOf: original.id,
      version: versionNumber(original) + 1
    }
  };
  const path = [...transcript.slice(0, at), message];
  return {
    ok: true,
    body: JSON.stringify({ messages: path, trigger }),
    newText: text,
    messageId: message.id,
    traceparent,
    branch: { kind: "edit", parentId: at > 0 ? transcript[at - 1].id : null, message, path }
  };
}
