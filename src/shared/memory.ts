/**
 * Wire types of a room's memory: pins (what members keep in every
 * context), summaries (what stands in for messages that left the model's
 * window; the messages themselves stay in history), and the record of what
 * went into one answer's context ("What the AI saw"). Runtime-safe for the
 * browser bundle.
 */
import { z } from "zod";
import type { MessageAuthor } from "./identity";

/** Pins a room keeps; one more is refused with 409. */
export const MAX_PINS_PER_ROOM = 50;
/** Characters of one pin (a note, or the pinned message's text, cut with "…" and marked). */
export const MAX_PIN_LENGTH = 1_000;

export const PinText = z
  .string({ error: "text must be a string" })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, "text must not be empty")
      .max(MAX_PIN_LENGTH, `text must be at most ${MAX_PIN_LENGTH} characters`)
      .refine(
        (s) => !/[^\P{Cc}\n\t]/u.test(s),
        "text must not contain control characters (other than new lines and tabs)"
      )
  );

const MessageId = z
  .string({ error: "messageId must be a string" })
  .min(1, "messageId must not be empty")
  .max(128, "messageId must be at most 128 characters");

/** `{ text }` writes a note; `{ messageId }` pins that message's text. */
export const CreatePinBody = z.union([z.strictObject({ text: PinText }), z.strictObject({ messageId: MessageId })], {
  error: "give either text (a note) or messageId (a message to pin)"
});
export type CreatePinBody = z.infer<typeof CreatePinBody>;

/** Edit a pin's text, or accept a pin the assistant proposed. */
export const UpdatePinBody = z
  .strictObject({ text: PinText.optional(), accepted: z.literal(true).optional() })
  .refine((b) => b.text !== undefined || b.accepted !== undefined, "give text, or accepted: true");
export type UpdatePinBody = z.infer<typeof UpdatePinBody>;

export interface Pin {
  id: string;
  text: string;
  /** The pinned message, when the pin is one (it stays in history either way). */
  messageId: string | null;
  /** Who pinned it; for a pin the assistant proposed, who accepted it. */
  author: MessageAuthor;
  createdAt: number;
  updatedAt: number;
  /** Who last edited it, when someone did. */
  updatedBy: MessageAuthor | null;
  /** `proposed`: suggested by the assistant, not in any context until a member accepts it. */
  status: "active" | "proposed";
  /** The pinned message's text was longer than a pin and was cut. */
  truncated: boolean;
}

export interface Summary {
  id: string;
  /** The first and last message the summary stands in for (inclusive, on the room's path). */
  fromMessageId: string;
  toMessageId: string;
  /** Messages it covers. */
  messageCount: number;
  /** 0: written from messages; n + 1: written from level-n summaries (a very long room stays bounded). */
  level: number;
  text: string;
  tokens: number;
  /** The model that wrote it (`extract` for an offline room's extractive summary). */
  model: string;
  /** The model hit the summary's token budget, so its text may end early. */
  truncated: boolean;
  createdAt: number;
}

export interface RoomMemory {
  pins: Pin[];
  /** The summaries in use, oldest span first. */
  summaries: Summary[];
  /** A rebuild in progress (the summaries above stay in use until it finishes). */
  rebuilding: { startedAt: number; written: number } | null;
  /** Messages that left the model's window and are not summarised yet (the next summary covers them). */
  unsummarised: { messageCount: number } | null;
  budgets: { pins: number; summaries: number; contextTokens: number };
}

// ── What the AI saw ──

interface Counted {
  tokens: number;
}

export interface ContextPinRef extends Counted {
  id: string;
}

export interface ContextSummaryRef extends Counted {
  id: string;
  fromMessageId: string;
  toMessageId: string;
  messageCount: number;
  level: number;
}

export interface ContextPassageRef extends Counted {
  /** Filled by the files feature: which file and passage. */
  fileId: string;
  passageId: string;
  name?: string;
}

export interface ContextWindowRef extends Counted {
  fromMessageId: string | null;
  toMessageId: string | null;
  messageCount: number;
}

/**
 * What went into one answer's model request. References and token counts
 * only: the messages, pins and summaries it names are read when shown.
 */
export interface ContextRecord {
  /** Estimated tokens (about 4 characters a token) of the whole request, and the budget it had. */
  budget: number;
  totalTokens: number;
  systemPrompt: Counted;
  pins: ContextPinRef[];
  summaries: ContextSummaryRef[];
  passages: ContextPassageRef[];
  window: ContextWindowRef;
  tools: Array<{ name: string } & Counted>;
  /** What was in memory for this context but did not fit its budget: never left out silently. */
  leftOut: {
    pins: string[];
    summaries: string[];
    passages: string[];
    /** Messages before the window, neither in it nor summarised yet. */
    messages: number;
  };
}

/** `GET /api/rooms/:id/messages/:messageId/context`: the record, with what it names as it reads now. */
export interface AnswerContext {
  messageId: string;
  createdAt: number;
  /** `assistant`, or the persona that answered. */
  speaker: { kind: "assistant" } | { kind: "persona"; id: string; name: string };
  record: ContextRecord;
  pins: Array<{ id: string; text: string | null; tokens: number; changed: boolean }>;
  summaries: Array<ContextSummaryRef & { text: string | null }>;
}
