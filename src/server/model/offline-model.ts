/**
 * The built-in offline model: what a room answers with when no OpenAI-
 * compatible endpoint is configured. It is an AI SDK language model
 * (LanguageModelV4) that streams a deterministic, clearly labelled canned
 * reply. It is not AI and says so.
 *
 * Pure: no Cloudflare APIs, no env, no I/O; only timers for the optional
 * streaming delay.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata
} from "@ai-sdk/provider";
import { PASSAGES_HEADING } from "@/server/domain/files/file-context";
import { estimateTokens } from "@/server/domain/turns/context-budget";

export interface OfflineRoomFacts {
  roomName: string;
  messageCount: number;
  systemPrompt: string | null;
  /** Who answers when it is not the room's assistant (a persona's name, or "task"). */
  speaker?: string;
}

export interface OfflineModelOptions {
  /** Delay between streamed chunks, in ms. Default {@link DEFAULT_CHUNK_DELAY_MS}; 0 disables it. */
  chunkDelayMs?: number;
}

/** Model id reported in response metadata, so callers can tell the reply is offline. */
export const OFFLINE_MODEL_ID = "rooms-offline";
/** Provider name of the offline model (also the providerMetadata key). */
const OFFLINE_PROVIDER = "rooms-offline";
const DEFAULT_CHUNK_DELAY_MS = 15;

const MAX_QUESTION_CHARS = 500;
const MAX_SYSTEM_PROMPT_CHARS = 200;
const TEXT_ID = "offline-text-0";

const FINISH_REASON: LanguageModelV4FinishReason = { unified: "stop", raw: "stop" };
const TOOL_CALLS: LanguageModelV4FinishReason = { unified: "tool-calls", raw: "tool_calls" };
const PROVIDER_METADATA: SharedV4ProviderMetadata = {
  [OFFLINE_PROVIDER]: { offline: true }
};

/** Truncates to `max` code points (never splits a surrogate pair). */
function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  if (text.length <= max * 2) {
    const chars = Array.from(text);
    if (chars.length <= max) return { text, truncated: false };
    return { text: chars.slice(0, max).join(""), truncated: true };
  }
  // More than 2*max UTF-16 units means more than max code points; only look at the head.
  return {
    text: Array.from(text.slice(0, max * 2))
      .slice(0, max)
      .join(""),
    truncated: true
  };
}

/** Escapes characters that would change inline Markdown formatting. */
function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]<>|~])/g, "\\$1");
}

/**
 * Renders the question as a blockquote that cannot break out: every line is
 * prefixed with `>`, and lines that would open a fenced code block (``` or
 * ~~~) get their fence characters backslash-escaped.
 */
function quoteQuestion(question: string): string {
  const { text, truncated } = truncate(question, MAX_QUESTION_CHARS);
  const body = truncated ? `${text}…` : text;
  return body
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const neutral = line.replace(
        /^(\s*)(`{3,}|~{3,})/,
        (_m, indent: string, fence: string) => indent + fence.replace(/[`~]/g, "\\$&")
      );
      return neutral.length > 0 ? `> ${neutral}` : ">";
    })
    .join("\n");
}

/** The text of the last user message in the prompt ("" if there is none). */
function lastUserQuestion(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== "user") continue;
    return message.content
      .flatMap((part) => (part.type === "text" ? [part.text] : []))
      .join("\n")
      .trim();
  }
  return "";
}

/**
 * Delegation offline: a question "delegate: <task>" (or "delegate later:
 * <task>", in the background) makes the model call the `delegate` tool when
 * it has one, so `npm start` with no key shows tasks too. Null otherwise.
 */
export function offlineDelegation(question: string): { task: string; background: boolean } | null {
  const match = /^\/?delegate( later)?:\s*([\s\S]+)$/i.exec(question.trim());
  const task = match?.[2]?.trim();
  return task ? { task, background: match?.[1] !== undefined } : null;
}

/**
 * Reactions offline: a message that only thanks or agrees ("thanks!",
 * "sounds good") makes a persona that may react put an emoji on it instead
 * of answering, as a person would. The persona's transcript opens each
 * message with who sent it ("[from person …]") and the message may mention
 * the persona: both are skipped. Null for anything else.
 */
export function offlineReaction(question: string): string | null {
  const said = question
    .replace(/^\[from [^\]]*\]\s*/, "")
    .replace(/@[\p{L}][\p{L}\p{N}_-]*[,:]?/gu, "")
    .replace(/[\s!.,]+/g, " ")
    .trim()
    .toLowerCase();
  if (/^(thanks|thank you|thx|cheers|many thanks)( (so much|a lot|all|everyone))?$/.test(said)) return "🙏";
  if (/^(ok|okay|got it|sounds good|agreed|great|perfect|nice|cool|lgtm|makes sense)$/.test(said)) return "👍";
  return null;
}

/** The text of the last tool result, when the prompt ends with one (the model's next step after a tool). */
function lastToolResult(prompt: LanguageModelV4Prompt): string | null {
  const last = prompt.at(-1);
  if (last?.role !== "tool") return null;
  const pieces: string[] = [];
  for (const part of last.content) {
    if (part.type !== "tool-result") continue;
    const output = part.output as { type?: string; value?: unknown };
    const value = output?.value as { result?: unknown; limit?: unknown; error?: unknown } | string | undefined;
    if (typeof value === "string") pieces.push(value);
    else if (value && typeof value === "object") {
      const said = [value.result, value.limit, value.error].find((v) => typeof v === "string" && v.length > 0);
      pieces.push(typeof said === "string" ? said : safeJson(value));
    }
  }
  return pieces.join("\n\n");
}

function composeToolFollowUp(result: string): string {
  const { text, truncated } = truncate(result.trim() || "(nothing)", MAX_QUESTION_CHARS);
  return [
    "**Offline model** — this room is not connected to a language model, so this is a canned reply, not AI.",
    `The tool answered:\n\n${quoteQuestion(truncated ? `${text}…` : text)}`
  ].join("\n\n");
}

/** The canned reply for `question` in a room described by `facts`. Pure and deterministic. */
export function composeOfflineReply(question: string, facts: OfflineRoomFacts): string {
  const trimmed = question.trim();
  const asked =
    trimmed.length > 0
      ? `You asked:\n\n${quoteQuestion(trimmed)}`
      : "You did not ask anything I could read (the last message had no text).";

  const count = Math.max(0, Math.floor(facts.messageCount));
  const messages = `${count} ${count === 1 ? "message" : "messages"} so far`;

  const rawPrompt = (facts.systemPrompt ?? "").replace(/\s+/g, " ").trim();
  let systemPrompt = "none";
  if (rawPrompt.length > 0) {
    const { text, truncated } = truncate(rawPrompt, MAX_SYSTEM_PROMPT_CHARS);
    systemPrompt = `“${escapeInline(text)}${truncated ? "…" : ""}”`;
  }

  const name = escapeInline(facts.roomName.replace(/\s+/g, " ").trim()) || "(unnamed)";

  const speaker = facts.speaker ? escapeInline(facts.speaker.replace(/\s+/g, " ").trim()) : "";
  return [
    speaker
      ? `**Offline model, answering as ${speaker}** — this room is not connected to a language model, so this is a canned reply, not AI.`
      : "**Offline model** — this room is not connected to a language model, so this is a canned reply, not AI.",
    asked,
    `What this room knows: name **${name}**, ${messages}, system prompt: ${systemPrompt}.`,
    "To get real answers, set `OPENAI_API_KEY` (and optionally `OPENAI_BASE_URL` for Ollama, llama.cpp, vLLM or LM Studio, and `OPENAI_MODEL`) in `.dev.vars` and restart."
  ].join("\n\n");
}

/**
 * The offline model's nod to the room's files: the first passage the room
 * retrieved for the question (its file, place and first line), cited as
 * [1] so the answer carries a citation even with no model. Null when the
 * request has no passages.
 */
export function offlineCitation(prompt: LanguageModelV4Prompt): string | null {
  const system = prompt.find((m) => m.role === "system")?.content ?? "";
  const at = system.indexOf(`## ${PASSAGES_HEADING}\n`);
  if (at < 0) return null;
  const first = /^\[1\] ([^\n]*):\n([^\n]*)/m.exec(system.slice(at + PASSAGES_HEADING.length + 4));
  if (!first?.[1]) return null;
  const { text, truncated } = truncate((first[2] ?? "").trim(), MAX_SYSTEM_PROMPT_CHARS);
  return `From the room's files, **${escapeInline(first[1])}** [1]:\n\n${quoteQuestion(truncated ? `${text}…` : text)}`;
}

/** Splits the reply into word-sized chunks whose concatenation is the reply. */
function splitIntoDeltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function promptChars(prompt: LanguageModelV4Prompt): string {
  const pieces: string[] = [];
  for (const message of prompt) {
    if (message.role === "system") {
      pieces.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === "text" || part.type === "reasoning") pieces.push(part.text);
      else if (part.type === "tool-call") pieces.push(safeJson(part.input));
      else if (part.type === "tool-result") pieces.push(safeJson(part.output));
    }
  }
  return pieces.join("\n");
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

function usageFor(prompt: LanguageModelV4Prompt, outputTokens: number): LanguageModelV4Usage {
  const input = estimateTokens(promptChars(prompt));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 }
  };
}

function abortError(): Error {
  return new DOMException("The offline model call was aborted.", "AbortError");
}

/**
 * Creates the offline model for a room. `facts` are captured at creation
 * time; create a new model per turn.
 */
export function createOfflineModel(facts: OfflineRoomFacts, opts: OfflineModelOptions = {}): LanguageModelV4 {
  const delayMs = Math.max(0, opts.chunkDelayMs ?? DEFAULT_CHUNK_DELAY_MS);

  const replyFor = (options: LanguageModelV4CallOptions): string => {
    const toolResult = lastToolResult(options.prompt);
    if (toolResult !== null) return composeToolFollowUp(toolResult);
    const reply = composeOfflineReply(lastUserQuestion(options.prompt), facts);
    const citation = offlineCitation(options.prompt);
    if (!citation) return reply;
    // After the question, before what the room knows.
    const at = reply.indexOf("What this room knows");
    return at < 0 ? `${reply}\n\n${citation}` : `${reply.slice(0, at)}${citation}\n\n${reply.slice(at)}`;
  };
  /**
   * The tool call this step makes, if any: `delegate` when the question asks
   * for one, `react` when it only thanks or agrees; each only when offered.
   */
  const toolCallFor = (options: LanguageModelV4CallOptions) => {
    if (lastToolResult(options.prompt) !== null) return null;
    const offered = (name: string) => options.tools?.some((tool) => tool.type === "function" && tool.name === name);
    const question = lastUserQuestion(options.prompt);
    const asked = offered("delegate") ? offlineDelegation(question) : null;
    if (asked) {
      return {
        toolName: "delegate",
        toolCallId: `offline-delegate-${crypto.randomUUID()}`,
        input: JSON.stringify(asked.background ? { task: asked.task, background: true } : { task: asked.task })
      };
    }
    const emoji = offered("react") ? offlineReaction(question) : null;
    if (!emoji) return null;
    return { toolName: "react", toolCallId: `offline-react-${crypto.randomUUID()}`, input: JSON.stringify({ emoji }) };
  };

  return {
    specificationVersion: "v4",
    provider: OFFLINE_PROVIDER,
    modelId: "offline",
    supportedUrls: {},

    async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
      if (options.abortSignal?.aborted) throw abortError();
      const call = toolCallFor(options);
      if (call) {
        return {
          content: [{ type: "tool-call", ...call }],
          finishReason: TOOL_CALLS,
          usage: usageFor(options.prompt, 1),
          providerMetadata: PROVIDER_METADATA,
          response: { modelId: OFFLINE_MODEL_ID },
          warnings: []
        };
      }
      const text = replyFor(options);
      return {
        content: [{ type: "text", text }],
        finishReason: FINISH_REASON,
        usage: usageFor(options.prompt, splitIntoDeltas(text).length),
        providerMetadata: PROVIDER_METADATA,
        response: { modelId: OFFLINE_MODEL_ID },
        warnings: []
      };
    },

    async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
      const signal = options.abortSignal;
      if (signal?.aborted) throw abortError();

      const call = toolCallFor(options);
      const deltas = call ? [] : splitIntoDeltas(replyFor(options));
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", modelId: OFFLINE_MODEL_ID },
        ...(call
          ? [{ type: "tool-call", ...call } satisfies LanguageModelV4StreamPart]
          : [
              { type: "text-start", id: TEXT_ID } satisfies LanguageModelV4StreamPart,
              ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: TEXT_ID, delta })),
              { type: "text-end", id: TEXT_ID } satisfies LanguageModelV4StreamPart
            ]),
        {
          type: "finish",
          finishReason: call ? TOOL_CALLS : FINISH_REASON,
          usage: usageFor(options.prompt, call ? 1 : deltas.length),
          providerMetadata: PROVIDER_METADATA
        }
      ];

      return { stream: pacedStream(parts, delayMs, signal) };
    }
  };
}

/**
 * The parts as a stream, a pause before each text delta after the first
 * (so it looks like streaming), ended at once by an abort.
 */
function pacedStream(
  parts: LanguageModelV4StreamPart[],
  delayMs: number,
  signal: AbortSignal | undefined
): ReadableStream<LanguageModelV4StreamPart> {
  let index = 0;
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;

  const cleanup = () => {
    done = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    signal?.removeEventListener("abort", onAbort);
    wake?.();
    wake = undefined;
  };

  let controllerRef: ReadableStreamDefaultController<LanguageModelV4StreamPart> | undefined;
  function onAbort() {
    if (done) return;
    cleanup();
    try {
      controllerRef?.error(abortError());
    } catch {
      // already closed
    }
  }

  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      controllerRef = controller;
      signal?.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      if (done) return;
      const part = parts[index];
      if (!part) throw new Error("The offline model read past its last part.");
      // Pause before each text delta after the first, so it looks like streaming.
      if (delayMs > 0 && part.type === "text-delta" && parts[index - 1]?.type === "text-delta") {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, delayMs);
        });
        timer = undefined;
        wake = undefined;
        if (done) return;
      }
      controller.enqueue(part);
      index++;
      if (index >= parts.length) {
        cleanup();
        controller.close();
      }
    },
    cancel() {
      cleanup();
    }
  });
}
