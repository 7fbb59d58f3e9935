/**
 * Several answers streaming into one room at once.
 *
 * Why this shape: `AIChatAgent` runs one turn at a time and streams one
 * assistant message per turn (`_reply`); `saveMessages` calls queue behind
 * each other. So parallel persona answers cannot be parallel chat turns.
 * Instead the room's single turn *is* the turn tree: `onChatMessage` plans
 * the turn (mentions.ts), and for persona answers it
 *   1. appends one empty assistant message per persona with
 *      `metadata.persona` (persistMessages: the framework's write path,
 *      which every client's useAgentChat already merges),
 *   2. asks each persona facet for its answer; each facet runs its own
 *      model call and streams UI message chunks back over RPC,
 *   3. folds each stream into its message with the AI SDK's own
 *      `readUIMessageStream`, and relays the growing message to every
 *      socket as the framework's `cf_agent_message_updated` frame (which
 *      useAgentChat applies in place), coalesced per stream,
 *   4. persists each final message when its stream ends.
 * All of that happens inside the turn, so the turn's abort signal (Stop,
 * from anyone in the room) reaches every persona stream, and the next
 * queued question waits until every answer of this one is in.
 * One persona failing or timing out only marks its own message.
 */
import { type ModelMessage, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import type { AgentRun } from "@/server/agents/room/turn-trace";
import {
  FACET_RETRY_BACKOFF_MS,
  facetUnreachable,
  pause,
  readStructuredError,
  shouldRetry
} from "@/server/domain/facets/facet-errors";
import type { StructuredError } from "@/shared/budgets";
import type { AnswerErrorCode } from "@/shared/errors";
import type { MessageAuthor } from "@/shared/identity";
import type { Persona, PersonaRef } from "@/shared/personas";
import type { MessageMetadata, RoomSettings, TokenUsage } from "@/shared/protocol";
import type { PersonaAnswerRequest } from "./persona-agent";

/** A persona answer that runs longer than this is stopped and marked as timed out. */
export const PERSONA_ANSWER_TIMEOUT_MS = 120_000;
/** Live updates of one streaming answer are sent at most this often. */
const PERSONA_RELAY_INTERVAL_MS = 50;

export interface PersonaAnswerer {
  answer(request: PersonaAnswerRequest): Promise<ReadableStream<Uint8Array>> | ReadableStream<Uint8Array>;
  stop(runId: string): Promise<boolean> | boolean;
}

/** What the runner needs from its room. */
export interface PersonaTurnHost {
  settings(): RoomSettings;
  messageCount(): number;
  /**
   * What one persona sees: the transcript window as model messages, and the
   * room's memory (pins, summaries) for its system prompt. Recorded under the
   * turn's trace as what this persona's answer saw.
   */
  contextFor(persona: Persona, traceId: string | undefined): Promise<{ messages: ModelMessage[]; memory: string }>;
  persona(id: string): Promise<PersonaAnswerer>;
  /** Insert or replace one message in the transcript, serialised with other writes. */
  upsert(message: UIMessage): Promise<void>;
  /** Take one message back out of the transcript (an answer that was only a reaction). */
  remove(messageId: string): Promise<void>;
  /** Send the growing message to every socket (not persisted). */
  relay(message: UIMessage): void;
  modelLabel(persona: Persona): { model: string; offline: boolean };
  /** The persona's span in the turn's trace, and its live node (room/turn-trace.ts). */
  startRun?(persona: Persona, attempt?: number): AgentRun;
}

export interface PersonaAnswer {
  persona: PersonaRef;
  message: UIMessage;
  status: "completed" | "error" | "aborted";
  text: string;
  error?: string;
  usage?: TokenUsage;
  /** The persona reacted with this emoji instead of answering: its empty message was taken back out. */
  reaction?: string;
}

export interface PersonaRunOptions {
  /** The question these answers answer (metadata.answers). */
  answering: string | null;
  signal?: AbortSignal;
  instructions?: string;
  timeoutMs?: number;
  /** Marks the answers as a panel's (the UI shows them side by side). */
  panel?: boolean;
  /** Who stopped the turn, read when an answer ends stopped. */
  stoppedBy?: () => MessageAuthor | undefined;
  /** A regeneration: the empty version this (single) answer fills in, with its place among the versions. */
  into?: { id: string; versionOf: string; version: number };
}

function textOf(message: UIMessage): string {
  return message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("");
}

/** The emoji of the persona's `react` call that went through, if it made one. */
function reactionOf(message: UIMessage): string | undefined {
  for (const part of message.parts) {
    if (part.type !== "tool-react" || !("state" in part) || part.state !== "output-available") continue;
    const emoji = (part.output as { emoji?: unknown } | undefined)?.emoji;
    if (typeof emoji === "string") return emoji;
  }
  return undefined;
}

/** NDJSON bytes → UI message chunks. */
function decodeChunks(bytes: ReadableStream<Uint8Array>): ReadableStream<UIMessageChunk> {
  let buffer = "";
  const decoder = new TextDecoder();
  return bytes.pipeThrough(
    new TransformStream<Uint8Array, UIMessageChunk>({
      transform(bytes, controller) {
        buffer += decoder.decode(bytes, { stream: true });
        let newline = buffer.indexOf("\n");
        while (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim()) controller.enqueue(JSON.parse(line) as UIMessageChunk);
          newline = buffer.indexOf("\n");
        }
      },
      flush(controller) {
        if (buffer.trim()) controller.enqueue(JSON.parse(buffer) as UIMessageChunk);
      }
    })
  );
}

/**
 * Runs one persona's answer into its own message. Never throws. A
 * retryable failure before any text is tried once more (domain/facets/facet-errors.ts).
 */
async function runPersonaAnswer(
  host: PersonaTurnHost,
  persona: Persona,
  options: PersonaRunOptions
): Promise<PersonaAnswer> {
  const ref: PersonaRef = { id: persona.id, name: persona.name };
  const runId = crypto.randomUUID();
  const label = host.modelLabel(persona);
  let run = host.startRun?.(persona);
  const metadata: MessageMetadata = {
    createdAt: Date.now(),
    model: label.model,
    offline: label.offline,
    persona: ref,
    ...(run?.traceId ? { traceId: run.traceId } : {}),
    ...(options.answering ? { answers: options.answering } : {}),
    ...(options.panel ? { panel: "answer" as const } : {}),
    ...(options.into ? { versionOf: options.into.versionOf, version: options.into.version } : {})
  };
  let current: UIMessage = { id: options.into?.id ?? `persona_${runId}`, role: "assistant", parts: [], metadata };
  await host.upsert(current);

  const abort = new AbortController();
  let ending: { status: "aborted" | "error"; error?: string } | null = null;
  const end = (why: { status: "aborted" | "error"; error?: string }) => {
    if (ending) return;
    ending = why;
    abort.abort();
  };
  const onOuterAbort = () => end({ status: "aborted" });
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const timeoutMs = options.timeoutMs ?? PERSONA_ANSWER_TIMEOUT_MS;
  const timer = setTimeout(
    () =>
      end({
        status: "error",
        error: `@${persona.name} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`
      }),
    timeoutMs
  );

  let lastRelay = 0;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    pending = undefined;
    lastRelay = Date.now();
    host.relay(current);
  };
  const relaySoon = () => {
    if (pending) return;
    const wait = PERSONA_RELAY_INTERVAL_MS - (Date.now() - lastRelay);
    if (wait <= 0) flush();
    else pending = setTimeout(flush, wait);
  };

  let answerer: PersonaAnswerer | undefined;
  /** Why the last attempt failed, as the persona (or the failed RPC) said (domain/facets/facet-errors.ts). */
  let failure: StructuredError | null = null;
  try {
    for (let attempt = 1; ; attempt++) {
      failure = null;
      let reader: ReadableStreamDefaultReader<UIMessageChunk> | undefined;
      const onAbort = () => {
        void reader?.cancel().catch(() => {});
        void Promise.resolve(answerer?.stop(runId)).catch(() => {});
      };
      abort.signal.addEventListener("abort", onAbort, { once: true });
      try {
        if (abort.signal.aborted) throw abort.signal.reason;
        answerer = await host.persona(persona.id);
        const context = await host.contextFor(persona, run?.traceId ?? undefined);
        const settings = host.settings();
        const bytes = await answerer.answer({
          runId,
          persona,
          room: {
            name: settings.name,
            model: settings.model,
            temperature: settings.temperature,
            messageCount: host.messageCount()
          },
          messages: context.messages,
          ...(context.memory ? { memory: context.memory } : {}),
          instructions: options.instructions,
          // A panel and a regeneration owe an answer in words.
          ...(options.answering && !options.panel && !options.into ? { reactTo: options.answering } : {}),
          traceparent: run?.traceparent ?? null
        });
        const opened = decodeChunks(bytes).getReader();
        reader = opened;
        if (abort.signal.aborted) onAbort();
        const chunks = new ReadableStream<UIMessageChunk>({
          async pull(controller) {
            const { done, value } = await opened.read().catch(() => ({ done: true as const, value: undefined }));
            if (done) return controller.close();
            if (value.type === "error") {
              const { failure: sent, ...chunk } = value as typeof value & { failure?: unknown };
              failure = readStructuredError(sent) ?? {
                code: "upstream:model",
                message: chunk.errorText,
                retryable: false
              };
              return controller.enqueue(chunk);
            }
            // The room names the message, not the persona's stream.
            if (value.type === "start") controller.enqueue({ ...value, messageId: undefined });
            else controller.enqueue(value);
          }
        });
        for await (const snapshot of readUIMessageStream({
          message: current,
          stream: chunks,
          terminateOnError: false
        })) {
          current = { ...snapshot, id: current.id };
          relaySoon();
        }
      } catch {
        if (!abort.signal.aborted) failure = facetUnreachable(`@${persona.name}`);
      } finally {
        abort.signal.removeEventListener("abort", onAbort);
      }
      if (abort.signal.aborted || !shouldRetry(failure, attempt, textOf(current) !== "")) break;
      // One more try, after a pause; this attempt's span keeps why it failed.
      run?.end("error", failure?.code ?? null);
      await pause(FACET_RETRY_BACKOFF_MS, abort.signal);
      if (abort.signal.aborted) break;
      run = host.startRun?.(persona, attempt + 1);
      current = { ...current, parts: [] };
    }
  } finally {
    clearTimeout(timer);
    if (pending) clearTimeout(pending);
    options.signal?.removeEventListener("abort", onOuterAbort);
  }

  const ended = ending as { status: "aborted" | "error"; error?: string } | null;
  const outcome: Outcome = ended
    ? { ...ended, ...(ended.status === "error" ? { code: "upstream:timeout" } : {}) }
    : failure
      ? { status: "error", error: failure.message, code: failure.code }
      : { status: "completed" };
  current = { ...current, metadata: finalMetadata(current, metadata, outcome, options) };
  run?.end(
    outcome.status === "completed" ? "ok" : outcome.status === "aborted" ? "stopped" : "error",
    outcome.code ?? null
  );
  const reaction = outcome.status === "completed" && textOf(current).trim() === "" ? reactionOf(current) : undefined;
  // An answer that is only a reaction leaves no empty bubble: the emoji on the question is the answer.
  if (reaction) await host.remove(current.id);
  else await host.upsert(current);
  const usage = (current.metadata as MessageMetadata).usage;
  return {
    persona: ref,
    message: current,
    status: outcome.status,
    text: textOf(current),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(usage ? { usage } : {}),
    ...(reaction ? { reaction } : {})
  };
}

type Outcome = { status: PersonaAnswer["status"]; error?: string; code?: AnswerErrorCode };

/** The answer's metadata as it ended: the room's own fields over the stream's, and why it stopped or failed. */
function finalMetadata(
  current: UIMessage,
  metadata: MessageMetadata,
  outcome: Outcome,
  options: PersonaRunOptions
): MessageMetadata {
  const finalMeta = { ...((current.metadata ?? {}) as MessageMetadata), ...metadata };
  const usage = (current.metadata as MessageMetadata | undefined)?.usage;
  if (usage) finalMeta.usage = usage;
  if (outcome.status === "aborted") {
    finalMeta.stopped = true;
    const stopper = options.stoppedBy?.();
    if (stopper) finalMeta.stoppedBy = stopper;
  }
  if (outcome.status === "error") {
    finalMeta.error = outcome.error ?? "The model request failed.";
    if (outcome.code) finalMeta.errorCode = outcome.code;
  }
  return finalMeta;
}

/** Every persona at once; one failing never blocks the others. */
export function runPersonaAnswers(
  host: PersonaTurnHost,
  personas: readonly Persona[],
  options: PersonaRunOptions
): Promise<PersonaAnswer[]> {
  return Promise.all(personas.map((persona) => runPersonaAnswer(host, persona, options)));
}
