/**
 * Wire types of emoji reactions on a room's messages: the toggle's body,
 * what a message's reactions look like (each emoji with who reacted, in
 * the order they did), and the limits. Runtime-safe for the browser bundle.
 */
import { z } from "zod";
import type { MessageAuthor } from "./identity";

/** Characters of one reaction (an emoji with its modifiers and joiners fits easily). */
const MAX_REACTION_LENGTH = 32;
/** Different emoji on one message; one more is refused with 409 (an existing one can still be toggled). */
export const MAX_REACTIONS_PER_MESSAGE = 20;
/** The picker's choices; any other single emoji is accepted too. */
export const QUICK_REACTIONS = ["👍", "❤️", "😂", "🎉", "🤔", "👀", "✅", "🙏"] as const;

/**
 * One emoji as Unicode recommends for interchange (RGI): a keycap, a flag,
 * a skin tone, a ZWJ family are each one. Built at run time: the `v` flag
 * needs an ES2024 target for the compiler to accept a literal.
 */
// biome-ignore lint/complexity/useRegexLiterals: a literal with the `v` flag needs an ES2024 target.
const ONE_EMOJI = new RegExp("^\\p{RGI_Emoji}$", "v");

function isEmoji(value: string): boolean {
  return value.length <= MAX_REACTION_LENGTH && ONE_EMOJI.test(value);
}

export const ReactionBody = z.strictObject({
  emoji: z
    .string({ error: "emoji must be a string" })
    .min(1, "emoji must not be empty")
    .max(MAX_REACTION_LENGTH, `emoji must be at most ${MAX_REACTION_LENGTH} characters`)
    .refine(isEmoji, "emoji must be a single emoji, e.g. 👍")
});
export type ReactionBody = z.infer<typeof ReactionBody>;

/** One emoji on one message: who reacted with it, first first. */
export interface Reaction {
  emoji: string;
  by: MessageAuthor[];
}

/** Reactions by message id; a message with none has none listed (or `[]` in an update: all were taken back). */
export type ReactionsByMessage = Record<string, Reaction[]>;

/** `POST …/messages/:messageId/reactions`: the message's reactions after the toggle. */
export interface ReactionToggleResult {
  messageId: string;
  /** Whether the caller's reaction is on now (false: the toggle took it back). */
  reacted: boolean;
  reactions: Reaction[];
}
