/**
 * What a summary request says to the model, and the text of the memory
 * sections a context carries. A summary is written by the room's own model
 * with this dedicated prompt and its own output budget; an offline room
 * (no model) gets an extract of the span instead, labelled as such. Pure.
 */
import type { UIMessage } from "ai";
import { estimateTokens } from "@/server/domain/turns/context-budget";
import { authorName } from "@/shared/identity";
import type { PersonaRef } from "@/shared/personas";

/** The heading the span sits under in a summary request (the fake provider recognises it). */
export const SUMMARY_SPAN_HEADING = "## Conversation to summarise";
const SUMMARY_MERGE_HEADING = "## Summaries to combine";

const SUMMARY_SYSTEM_PROMPT = [
  "You keep the memory of a group chat room in which several people and AI assistants talk.",
  "Write a summary of the part of the conversation you are given, so that an assistant who cannot see it",
  "can still answer questions about it. Keep: decisions and who made them, facts, numbers, names, dates,",
  "commitments and open questions. Leave out greetings and small talk. Write plain prose or short bullet",
  "points, in the conversation's language, attributing statements to people by name. Never invent anything;",
  "if a message was shortened, say what you could not see."
].join(" ");

const MERGE_SYSTEM_PROMPT = [
  "You keep the memory of a group chat room. Combine the consecutive summaries you are given (oldest first)",
  "into one shorter summary of the whole span. Keep decisions, facts, numbers, names, dates, commitments",
  "and open questions, with who said them; drop what later summaries show was superseded. Never invent anything."
].join(" ");

/** Characters of one message's text in a summary request; longer ones are cut and marked. */
const MAX_MESSAGE_CHARS = 4_000;

type Meta = { author?: unknown; persona?: PersonaRef };

/**
 * A label, `[Ann]`, is the only "[" that opens a line of the span: brackets
 * in a person's name read as ( ), and a line of a message that opens with
 * one gets ( instead, so nobody writes a line that passes for the
 * assistant's (`[Assistant] …`) and lands in the room's memory as its words.
 */
const unbracketed = (name: string) => name.replace(/[[\uff3b]/gu, "(").replace(/[\]\uff3d]/gu, ")");
const unlabelled = (text: string) => text.replace(/\n(\s*)[[\uff3b]/gu, "\n$1(");

function speakerOf(message: UIMessage): string {
  const meta = (message.metadata ?? {}) as Meta;
  if (message.role === "user") return unbracketed(authorName(meta.author) ?? "Someone");
  if (meta.persona?.name) return `@${meta.persona.name}`;
  return "Assistant";
}

/** A message's words for the summariser: its text, and one line per tool it used. */
function wordsOf(message: UIMessage): string {
  const pieces: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text") pieces.push(part.text);
    else if (part.type === "file")
      pieces.push(`(attached a file${"filename" in part && part.filename ? `: ${part.filename}` : ""})`);
    else if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) {
      const name = "toolName" in part && typeof part.toolName === "string" ? part.toolName : part.type.slice(5);
      pieces.push(`(used the tool ${name})`);
    }
  }
  return pieces.join("\n").trim();
}

/** One line per message, `[speaker] text`, each cut to a bound that says where it was cut. */
export function spanTranscript(messages: readonly UIMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const words = unlabelled(wordsOf(message));
    if (!words) continue;
    const cut = words.length > MAX_MESSAGE_CHARS;
    const text = cut ? `${words.slice(0, MAX_MESSAGE_CHARS)} … [shortened: ${words.length} characters]` : words;
    lines.push(`[${speakerOf(message)}] ${text}`);
  }
  return lines.join("\n");
}

export function summaryRequest(
  messages: readonly UIMessage[],
  summaryTokens: number
): { system: string; prompt: string } {
  return {
    system: SUMMARY_SYSTEM_PROMPT,
    prompt: `${SUMMARY_SPAN_HEADING} (${messages.length} messages, oldest first; at most ${summaryTokens} tokens of summary)\n\n${spanTranscript(messages)}`
  };
}

export function mergeRequest(texts: readonly string[], summaryTokens: number): { system: string; prompt: string } {
  return {
    system: MERGE_SYSTEM_PROMPT,
    prompt: `${SUMMARY_MERGE_HEADING} (${texts.length}, oldest first; at most ${summaryTokens} tokens)\n\n${texts
      .map((t, i) => `### Part ${i + 1}\n${t}`)
      .join("\n\n")}`
  };
}

/** First sentence (or line) of a text, at most `max` characters. */
function firstSentence(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  const end = line.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? line.slice(0, end + 1) : line;
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence;
}

/**
 * An offline room's summary: the first sentence of each message, as many
 * as fit `maxTokens`, labelled as an extract (no model wrote it).
 */
export function extractiveSummary(
  messages: readonly UIMessage[],
  maxTokens: number
): { text: string; truncated: boolean } {
  const head = `Extract (no model is connected, so this is not a summary): the first words of ${messages.length} messages.`;
  const lines: string[] = [];
  let used = estimateTokens(head);
  let truncated = false;
  for (const message of messages) {
    const words = wordsOf(message);
    if (!words) continue;
    const line = `[${speakerOf(message)}] ${firstSentence(words, 200)}`;
    const cost = estimateTokens(line) + 1;
    if (used + cost > maxTokens) {
      truncated = true;
      break;
    }
    lines.push(line);
    used += cost;
  }
  return { text: [head, ...lines].join("\n"), truncated };
}

export function extractiveMerge(texts: readonly string[], maxTokens: number): { text: string; truncated: boolean } {
  const joined = texts.join("\n");
  const max = maxTokens * 4;
  return joined.length > max
    ? { text: `${joined.slice(0, max - 1)}…`, truncated: true }
    : { text: joined, truncated: false };
}

/** A summary as its context section shows it: which span it stands in for, then its text. */
export function summaryItemText(summary: { messageCount: number; text: string }): string {
  return `(${summary.messageCount} earlier messages, summarised)\n${summary.text.trim()}`;
}

export const PINS_HEADING = "Pinned by the room's members (keep these in mind)";
export const SUMMARIES_HEADING = "Summary of the earlier conversation (the messages themselves are not shown)";
