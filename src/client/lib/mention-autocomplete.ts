/**
 * The composer's @-mention autocomplete: which mention the caret is in, the
 * persona names that fit it, and the text with one picked. Pure. The rule
 * for what counts as a mention is the server's (domain/personas/mentions.ts): `@`
 * at the start or after a character that is not part of a word, an e-mail
 * address or another mention.
 */

export interface MentionInProgress {
  /** Where the `@` is. */
  start: number;
  /** What follows the `@` up to the caret. */
  query: string;
}

const MENTION_BEFORE_CARET = /(?<![\p{L}\p{N}_@.-])@([\p{L}\p{N}_-]*)$/u;

export function mentionAt(text: string, caret: number): MentionInProgress | null {
  const match = MENTION_BEFORE_CARET.exec(text.slice(0, caret));
  if (!match) return null;
  return { start: caret - match[1].length - 1, query: match[1] };
}

/** Names starting with the query (ignoring case), in roster order. */
export function namesMatching(names: readonly string[], query: string, limit = 8): string[] {
  const q = query.toLocaleLowerCase();
  return names.filter((name) => name.toLocaleLowerCase().startsWith(q)).slice(0, limit);
}

/** The text with the mention replaced by `@Name ` and where the caret goes. */
export function insertMention(
  text: string,
  mention: MentionInProgress,
  caret: number,
  name: string
): { text: string; caret: number } {
  const after = text.slice(caret);
  const inserted = `@${name}${after.startsWith(" ") ? "" : " "}`;
  return { text: text.slice(0, mention.start) + inserted + after, caret: mention.start + inserted.length };
}
