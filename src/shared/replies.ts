/**
 * Replies: a person's message may reply to one earlier message of its room.
 * The sender names it by id (`replyTo` on a REST send, or in the chat
 * request's message metadata); the server checks that the id names a stored
 * message of the room and keeps a short quote of it in the new message's
 * metadata (`metadata.replyTo`), so the quote chip and the model's context
 * need no lookup later and still read right if the original is far back.
 * Shared so the browser shows its own pending reply exactly as the server
 * will store it. Runtime-safe for the browser bundle.
 */
import { z } from "zod";
import { authorName } from "./identity";

/** Characters of the original a reply keeps (and the model sees). */
export const REPLY_QUOTE_LENGTH = 200;
/** A message id, as the server writes them (the same bound as the stored rows'). */
const MAX_REPLY_ID_LENGTH = 128;
/** A speaker's label: a person's name, "@Persona" or "Assistant" (authors are at most 64 characters). */
const MAX_REPLY_NAME_LENGTH = 80;

/** What a client sends: the id of the message it replies to. */
export const ReplyToId = z
  .string({ error: "replyTo must be a message id" })
  .min(1, "replyTo must not be empty")
  .max(MAX_REPLY_ID_LENGTH, `replyTo must be at most ${MAX_REPLY_ID_LENGTH} characters`);

/** What a reply stores of the message it replies to (written by the server only). */
export interface ReplyRef {
  id: string;
  /** Who wrote it, as the room shows them: a person's name, "@Persona" or "Assistant". */
  name: string;
  /** Its first words, whitespace collapsed, at most REPLY_QUOTE_LENGTH characters ("" for files alone). */
  text: string;
}

/** Whitespace collapsed and cut to `max` characters, an ellipsis marking the cut. */
export function quoteText(text: string, max = REPLY_QUOTE_LENGTH): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

interface Quotable {
  id: string;
  role: string;
  parts: ReadonlyArray<{ type: string; text?: unknown; filename?: unknown }>;
  metadata?: unknown;
}

/** The label a message's speaker has in the room. */
function speakerName(message: Pick<Quotable, "role" | "metadata">): string {
  const meta = (message.metadata ?? {}) as { author?: unknown; persona?: { name?: unknown } };
  if (message.role === "user") return authorName(meta.author) ?? "Someone";
  return typeof meta.persona?.name === "string" ? `@${meta.persona.name}` : "Assistant";
}

/** What a reply to `message` keeps of it: its id, its speaker and its first words (or its files' names). */
export function replyRefOf(message: Quotable): ReplyRef {
  const text = message.parts
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("");
  const files = message.parts
    .filter((p) => p.type === "file" && typeof p.filename === "string")
    .map((p) => p.filename as string);
  return {
    id: message.id,
    name: quoteText(speakerName(message), MAX_REPLY_NAME_LENGTH),
    text: quoteText(text.trim() ? text : files.join(", "))
  };
}

/** A stored `replyTo` of the shape above (ids, names and quotes bounded), or undefined. */
export function readReplyRef(value: unknown): ReplyRef | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { id, name, text } = value as Record<string, unknown>;
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_REPLY_ID_LENGTH) return undefined;
  if (typeof name !== "string" || typeof text !== "string") return undefined;
  return {
    id,
    name: quoteText(name, MAX_REPLY_NAME_LENGTH) || "Someone",
    text: quoteText(text)
  };
}
