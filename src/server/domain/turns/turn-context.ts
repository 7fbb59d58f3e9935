/**
 * Which question a turn answers, and the conversation the model sees for it.
 *
 * Two people can send at once. The room stores both questions as they
 * arrive and answers them one at a time, so the stored order can be
 * u1, u2, a1, a2. Read naively, the turn for u1 would see u2 as the latest
 * question and answer it twice. Each answer therefore records the question
 * it answers (`metadata.answers`); a turn answers the oldest unanswered
 * question and sees the conversation threaded question → answer, up to it.
 */
import type { UIMessage } from "ai";

type Meta = { answers?: unknown; noReply?: unknown };

/** A question the room decided nobody answers counts as answered. */
const settled = (message: UIMessage) => (message.metadata as Meta | undefined)?.noReply === true;

export interface TurnContext {
  /** The user message this turn answers, or null when there is none. */
  answering: string | null;
  /** Messages for the model, threaded, ending with the question. */
  messages: UIMessage[];
}

export function contextForTurn(messages: readonly UIMessage[]): TurnContext {
  // Who answers whom: explicit metadata first, else the nearest question before.
  const answersOf = new Map<string, UIMessage[]>();
  const placed = new Set<UIMessage>();
  let lastUserId: string | null = null;
  for (const message of messages) {
    if (message.role === "user") {
      lastUserId = message.id;
      continue;
    }
    if (message.role !== "assistant") continue;
    const explicit = (message.metadata as Meta | undefined)?.answers;
    const target = typeof explicit === "string" ? explicit : lastUserId;
    if (target === null) continue;
    const list = answersOf.get(target) ?? [];
    list.push(message);
    answersOf.set(target, list);
    placed.add(message);
  }

  const users = messages.filter((m) => m.role === "user");
  const anchor = users.find((u) => !answersOf.has(u.id) && !settled(u)) ?? users.at(-1) ?? null;
  if (!anchor) return { answering: null, messages: [...messages] };

  const threaded: UIMessage[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      if (message.id === anchor.id) {
        threaded.push(message);
        break;
      }
      // Questions after the anchor are queued behind it; skip them here.
      if (settled(message)) {
        threaded.push(message, ...(answersOf.get(message.id) ?? []));
        continue;
      }
      const answers = answersOf.get(message.id);
      if (!answers) continue;
      threaded.push(message, ...answers);
    } else if (!placed.has(message)) {
      threaded.push(message);
    }
  }
  return { answering: anchor.id, messages: threaded };
}
