/**
 * Mentions of people, as text: the fragment after each `@` of a message
 * (the same rule as persona mentions, domain/personas/mentions.ts: `@` at
 * the start or after a character that is not part of a word, an e-mail
 * address or another mention), and the names a fragment may stand for.
 * People's names may hold spaces ("@Bob Smith"), so a fragment is tried as
 * one to four words, longest first; the overseer looks each up by index
 * (overseer/notification-inbox.ts). Pure.
 */
import { MAX_AUTHOR_LENGTH } from "@/shared/constants";
import type { MessageAuthor } from "@/shared/identity";
import { MAX_MENTIONED_PEOPLE } from "@/shared/notifications";

const MENTION_START = /(?<![\p{L}\p{N}_@.-])@(?=\p{L})/gu;
/** The longest name a fragment is tried as, in words. */
const MAX_NAME_WORDS = 4;

/**
 * The text after each mention's `@`, up to the line's end and no longer
 * than a name can be; at most MAX_MENTIONED_PEOPLE fragments, each once.
 * `skip` leaves out fragments that name something else (a persona).
 */
export function mentionFragments(text: string, skip: (fragment: string) => boolean = () => false): string[] {
  const fragments: string[] = [];
  for (const match of text.matchAll(MENTION_START)) {
    const start = (match.index ?? 0) + 1;
    const fragment = Array.from(text.slice(start, start + MAX_AUTHOR_LENGTH * 2).split("\n")[0])
      .slice(0, MAX_AUTHOR_LENGTH)
      .join("")
      .trim();
    if (!fragment || skip(fragment) || fragments.includes(fragment)) continue;
    fragments.push(fragment);
    if (fragments.length >= MAX_MENTIONED_PEOPLE) break;
  }
  return fragments;
}

/** A fragment's first word, as a persona's name would be written. */
export function firstWord(fragment: string): string {
  return (fragment.split(/\s+/)[0] ?? "").replace(/[^\p{L}\p{N}_-].*$/u, "");
}

/** A fragment's candidate names, longest first: "Bob Smith, see" → "Bob Smith, see", "Bob Smith", "Bob". */
export function candidateNames(fragment: string): string[] {
  const words = fragment.split(/\s+/).filter(Boolean).slice(0, MAX_NAME_WORDS);
  const names: string[] = [];
  for (let n = words.length; n > 0; n--) {
    const name = words
      .slice(0, n)
      .join(" ")
      .replace(/[.,;:!?)'"’]+$/u, "");
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}

/** A message that mentions people, as its room reports it. */
export interface MentionReport {
  messageId: string;
  author: MessageAuthor;
  preview: string;
  /** The text after each mention's `@` (room/room-mentions.ts), persona mentions left out. */
  fragments: string[];
  /** The identity id of the person whose message this one replies to, if it replies to a person's. */
  repliesTo?: string;
}
