/**
 * Builds one model request's context from its parts, within the room's
 * token budget, and the record of what went in ("What the AI saw").
 *
 * The parts, in the order the model reads them: the system prompt; the
 * room's memory sections (pins, summaries of what left the window, and
 * retrieved file passages), each within its own budget; the tools; and the
 * window of recent messages, which gets what is left. Sections go into the
 * system message, so the transcript the model reads stays the room's own
 * messages. An item that does not fit its section's budget is named in the
 * record's `leftOut`, never dropped silently.
 *
 * Pure: no I/O. Token counts are the cheap estimate of context-budget.ts
 * (about 4 characters a token). The record holds references and counts,
 * never copies of what it names.
 */
import type { UIMessage } from "ai";
import { estimateTokens, selectContextWindow } from "@/server/domain/turns/context-budget";
import type {
  ContextPassageRef,
  ContextPinRef,
  ContextRecord,
  ContextSummaryRef,
  ContextWindowRef
} from "@/shared/memory";

type Uncounted<T> = Omit<T, "tokens">;

/** One section of the system message, and what each of its items refers to. */
export type ContextSection =
  | { kind: "pins"; heading: string; budget: number; items: Array<{ ref: Uncounted<ContextPinRef>; text: string }> }
  | {
      kind: "summaries";
      heading: string;
      budget: number;
      /** Oldest span first; when over budget the newest are kept (they lead into the window). */
      items: Array<{ ref: Uncounted<ContextSummaryRef>; text: string }>;
    }
  | {
      kind: "passages";
      heading: string;
      budget: number;
      items: Array<{ ref: Uncounted<ContextPassageRef>; text: string }>;
    };

export interface ContextParts {
  /** Estimated tokens for the whole request. */
  budget: number;
  /** The room's (or persona's) own system prompt, first in the system message. */
  systemPrompt: string;
  sections: readonly ContextSection[];
  /** The conversation the turn answers (already threaded), oldest first. */
  history: readonly UIMessage[];
  /** Tools offered with the request: their names and estimated definition size. */
  tools?: ReadonlyArray<{ name: string; tokens: number }>;
}

export interface AssembledContext {
  /** The system message: the system prompt, then each section that has items in context. */
  system: string;
  /** The sections alone, for a caller that writes its own system prompt around them (a persona). */
  memory: string;
  /** The window of recent messages the model reads. */
  messages: UIMessage[];
  /** History before the window (not in this request), oldest first. */
  dropped: UIMessage[];
  record: ContextRecord;
}

/** Cost of an item as it is rendered (a list line or a paragraph) in its section. */
const itemTokens = (text: string) => estimateTokens(text) + 1;

function render(heading: string, texts: string[], kind: ContextSection["kind"]): string {
  const body = kind === "pins" ? texts.map((t) => `- ${t.replace(/\s*\n\s*/g, " ")}`).join("\n") : texts.join("\n\n");
  return `## ${heading}\n${body}`;
}

/** Which items of a section fit its budget: first-come for pins and passages, newest-first for summaries. */
function fitBudget<T extends { text: string }>(items: readonly T[], budget: number, newestFirst: boolean) {
  const order = newestFirst ? [...items].reverse() : [...items];
  const kept = new Set<T>();
  let used = 0;
  for (const item of order) {
    const cost = itemTokens(item.text);
    if (used + cost > budget) continue;
    kept.add(item);
    used += cost;
  }
  return {
    kept: items.filter((item) => kept.has(item)),
    left: items.filter((item) => !kept.has(item)),
    used
  };
}

export function assembleContext(parts: ContextParts): AssembledContext {
  const systemPrompt = parts.systemPrompt.trim();
  const blocks: string[] = [];
  const record: ContextRecord = {
    budget: parts.budget,
    totalTokens: 0,
    systemPrompt: { tokens: estimateTokens(systemPrompt) },
    pins: [],
    summaries: [],
    passages: [],
    window: { fromMessageId: null, toMessageId: null, messageCount: 0, tokens: 0 },
    tools: (parts.tools ?? []).map((t) => ({ name: t.name, tokens: t.tokens })),
    leftOut: { pins: [], summaries: [], passages: [], messages: 0 }
  };

  let sectionTokens = 0;
  for (const section of parts.sections) {
    const items: ReadonlyArray<{ ref: SectionRef; text: string }> = section.items;
    const { kept, left, used } = fitBudget(items, section.budget, section.kind === "summaries");
    record.leftOut[section.kind].push(...left.map((item) => idOf(item.ref)));
    if (kept.length === 0) continue;
    sectionTokens += used + estimateTokens(`## ${section.heading}\n`);
    blocks.push(
      render(
        section.heading,
        kept.map((item) => item.text),
        section.kind
      )
    );
    for (const item of kept) {
      const counted = { ...item.ref, tokens: itemTokens(item.text) };
      if (section.kind === "pins") record.pins.push(counted as ContextPinRef);
      else if (section.kind === "summaries") record.summaries.push(counted as ContextSummaryRef);
      else record.passages.push(counted as ContextPassageRef);
    }
  }

  const toolTokens = record.tools.reduce((sum, t) => sum + t.tokens, 0);
  const window = selectContextWindow(parts.history as UIMessage[], {
    maxTokens: parts.budget - sectionTokens - toolTokens,
    systemPrompt
  });
  const dropped = parts.history.slice(0, parts.history.length - window.messages.length);
  record.window = windowRef(window.messages, window.usedTokens);
  record.leftOut.messages = dropped.length;
  record.totalTokens = record.systemPrompt.tokens + sectionTokens + toolTokens + window.usedTokens;
  const memory = blocks.join("\n\n");
  return {
    system: [systemPrompt, memory].filter(Boolean).join("\n\n"),
    memory,
    messages: window.messages,
    dropped,
    record
  };
}

function windowRef(messages: readonly UIMessage[], tokens: number): ContextWindowRef {
  return {
    fromMessageId: messages[0]?.id ?? null,
    toMessageId: messages.at(-1)?.id ?? null,
    messageCount: messages.length,
    tokens
  };
}

type SectionRef = ContextSection["items"][number]["ref"];

function idOf(ref: SectionRef): string {
  return "passageId" in ref ? ref.passageId : ref.id;
}
