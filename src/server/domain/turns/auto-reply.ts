/**
 * Auto mode (a room's `defaultResponder: "auto"`): whether a message that
 * names no one needs the assistant's answer. A short, cheap model call
 * decides, as group chats with an AI do: answer a question to the room, a
 * request or a factual claim worth correcting; stay quiet while people talk
 * to each other. This module is the call's words and the reading of its
 * answer, and the rule used without a model (offline rooms) or when the
 * model's answer cannot be read. Pure.
 */
import { mentionFragments } from "@/server/domain/notifications/mention-fragments";

export interface AutoDecision {
  answer: boolean;
  /** Why, in a few words: shown in the turn's trace. */
  reason: string;
}

/** The decision request's heading: how the request is recognised (the test provider answers it in kind). */
const AUTO_DECISION_HEADING = "## Should the assistant answer the latest message?";

const AUTO_DECISION_SYSTEM = `You decide whether the AI assistant of a group chat answers the latest message.
Answer when it is a question to the room or to the assistant, a request, or a factual claim worth correcting.
Stay quiet when people are talking to each other: greetings, thanks, small talk, plans between them.
Reply with JSON only: {"answer": true or false, "reason": "at most twelve words"}.`;

/** The decision's output budget: a line of JSON. */
export const AUTO_DECISION_MAX_TOKENS = 60;
/** How many messages before the latest one the decision sees, and how much of each. */
const CONTEXT_MESSAGES = 6;
const MAX_LINE_CHARS = 300;

export interface SpokenLine {
  speaker: string;
  text: string;
}

const clip = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= MAX_LINE_CHARS ? flat : `${flat.slice(0, MAX_LINE_CHARS - 1)}…`;
};

/** Brackets in a name read as ( ): "Ann] [Assistant" must not open a second label on its line. */
const unbracketed = (name: string) => name.replace(/[[\uff3b]/gu, "(").replace(/[\]\uff3d]/gu, ")");

export function decisionRequest(before: readonly SpokenLine[], latest: SpokenLine): { system: string; prompt: string } {
  const recent = before.slice(-CONTEXT_MESSAGES).map((line) => `[${unbracketed(line.speaker)}] ${clip(line.text)}`);
  return {
    system: AUTO_DECISION_SYSTEM,
    prompt: [
      AUTO_DECISION_HEADING,
      "",
      "Recent messages:",
      ...(recent.length > 0 ? recent : ["(none)"]),
      "",
      `Latest message, from ${latest.speaker}:`,
      clip(latest.text)
    ].join("\n")
  };
}

/** The model's answer read as a decision; null when it is not one. */
export function parseDecision(text: string): AutoDecision | null {
  const json = text.match(/\{[\s\S]*\}/)?.[0];
  if (!json) return null;
  try {
    const value = JSON.parse(json) as { answer?: unknown; reason?: unknown };
    if (typeof value.answer !== "boolean") return null;
    const reason = typeof value.reason === "string" && value.reason.trim() ? clip(value.reason).slice(0, 120) : "";
    return { answer: value.answer, reason: reason || (value.answer ? "needs an answer" : "no answer needed") };
  } catch {
    return null;
  }
}

const REQUEST_START =
  /^(please|pls|can|could|would|will|should|what|how|why|when|where|who|which|is|are|does|do|tell|explain|show|list|give|help|summari[sz]e|write|find)\b/i;
const DISPUTE = /\b(actually|that'?s (wrong|not right|incorrect)|not true|are you sure|i don'?t think so)\b/i;

/** Without a model: a question, a request or a dispute gets an answer; anything else does not. */
export function ruleOfThumb(text: string): AutoDecision {
  const t = text.trim();
  if (t.includes("?")) return { answer: true, reason: "a question" };
  if (REQUEST_START.test(t)) return { answer: true, reason: "a request" };
  if (DISPUTE.test(t)) return { answer: true, reason: "a factual dispute" };
  return { answer: false, reason: "people talking to each other" };
}

/** A message naming a person is addressed to them: no model call, the assistant stays quiet. */
export function addressedToSomeone(text: string): AutoDecision | null {
  const [first] = mentionFragments(text);
  if (!first) return null;
  return { answer: false, reason: `addressed to @${first.split(/\s+/)[0]}` };
}
