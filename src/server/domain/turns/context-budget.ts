/**
 * Chooses which part of a room's history is sent to the model.
 *
 * Pure: no Cloudflare APIs, no I/O. Token counts are a cheap, deterministic
 * estimate (about 4 characters per token), not a real tokenizer; they are
 * meant for budgeting, not billing.
 */
import type { UIMessage } from "ai";

interface BudgetOptions {
  /** Token budget for the history (the system prompt is taken out of it). */
  maxTokens: number;
}

export interface SelectContextWindowOptions extends BudgetOptions {
  /** The room's system prompt; its estimate is subtracted from `maxTokens`. */
  systemPrompt?: string | null;
}

export interface ContextWindow {
  /** The selected messages, oldest first (a suffix of the input, possibly minus leading non-user messages). */
  messages: UIMessage[];
  /** How many input messages are not in the window. */
  droppedCount: number;
  /** Estimated tokens of the messages in the window (the system prompt is NOT included). */
  usedTokens: number;
}

/** Fixed per-message overhead (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Flat estimate for a file / image part (its URL may be a huge data: URL). */
const FILE_PART_TOKENS = 256;

/** Cheap deterministic estimate: ceil(chars / 4). */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  return Math.ceil(text.length / 4);
}

function stringifyForEstimate(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    // Cycles, BigInt, etc.: fall back to something deterministic.
    return String(value);
  }
}

function isToolPart(part: { type: string }): boolean {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

/**
 * Estimated tokens of one UI message: a small fixed overhead plus its parts.
 * Text and reasoning count their text; tool parts count the tool name, the
 * JSON of the input and the output (and any error text); file parts count a
 * flat {@link FILE_PART_TOKENS}. Parts that are never sent to the model
 * (step-start, sources, data parts, custom parts) count nothing.
 */
export function estimateMessageTokens(message: UIMessage): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const part of message.parts) {
    switch (part.type) {
      case "text":
      case "reasoning":
        tokens += estimateTokens(part.text);
        break;
      case "file":
      case "reasoning-file":
        tokens += FILE_PART_TOKENS;
        break;
      case "steering-message":
        for (const inner of part.parts) {
          tokens += inner.type === "text" ? estimateTokens(inner.text) : FILE_PART_TOKENS;
        }
        break;
      default:
        if (isToolPart(part)) {
          const toolPart = part as {
            type: string;
            toolName?: string;
            input?: unknown;
            output?: unknown;
            errorText?: string;
          };
          tokens += estimateTokens(toolPart.toolName ?? toolPart.type);
          tokens += estimateTokens(stringifyForEstimate(toolPart.input));
          tokens += estimateTokens(stringifyForEstimate(toolPart.output));
          tokens += estimateTokens(toolPart.errorText ?? "");
        }
        break;
    }
  }
  return tokens;
}

/**
 * Keeps the most recent messages that fit in `maxTokens` minus the system
 * prompt's estimate.
 *
 * Rules:
 * - Messages are wholly in or wholly out (a tool call and its result live in
 *   the same assistant message, so tool exchanges are never split).
 * - The last message is always kept, even if it alone is over budget.
 * - If the window contains any `user` message, it starts with a `user`
 *   message: leading assistant/system messages are dropped.
 * - Scans from the end and stops at the first message that does not fit, so
 *   it only reads the tail it keeps (plus one message), however long the
 *   history is.
 */
export function selectContextWindow(messages: UIMessage[], opts: SelectContextWindowOptions): ContextWindow {
  const total = messages.length;
  if (total === 0) return { messages: [], droppedCount: 0, usedTokens: 0 };

  const budget = opts.maxTokens - estimateTokens(opts.systemPrompt ?? "");

  // Collected newest first; reversed at the end.
  const picked: UIMessage[] = [];
  const costs: number[] = [];
  let used = 0;
  // Position in `picked` of the oldest user message seen so far (-1: none).
  let oldestUserPos = -1;

  // Newest first, by index: only the messages that fit are ever read.
  for (let i = total - 1; i >= 0; i--) {
    const message = messages[i];
    if (message === undefined) continue;
    const cost = estimateMessageTokens(message);
    if (picked.length > 0 && used + cost > budget) break;
    picked.push(message);
    costs.push(cost);
    used += cost;
    if (message.role === "user") oldestUserPos = picked.length - 1;
  }

  // Drop leading non-user messages when the window holds a user message.
  if (oldestUserPos >= 0) {
    for (const cost of costs.slice(oldestUserPos + 1)) used -= cost;
    picked.length = oldestUserPos + 1;
  }

  picked.reverse();
  return { messages: picked, droppedCount: total - picked.length, usedTokens: used };
}
