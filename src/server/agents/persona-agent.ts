/**
 * PersonaAgent: one persona of one room, a facet of that room.
 *
 *   OverseerAgent (<workspace>)
 *     └── ChatRoom (<roomId>)
 *           └── PersonaAgent (<personaId>)   this file
 *
 * Why a facet and not a row in the room: a persona has a mind of its own.
 * Its private notes (the `remember` / `recall` tools) and its usage live in
 * its own SQLite, which no other persona's context and no room query can
 * read, and which `dynamicAgents.delete` wipes with the persona (and the
 * room's deletion wipes transitively).
 *
 * It is a plain `Agent`, not an `AIChatAgent`: the room's transcript is the
 * one conversation, so a persona keeps no transcript copy. The room hands it
 * the context for one answer; the persona runs the model with its own
 * prompt, notes and tools and streams the UI message chunks back over RPC
 * as newline-delimited JSON. The room relays them into its own messages
 * (see persona-turns.ts for why the room, not the persona, owns them).
 */
import { Agent } from "agents";
import {
  hasToolCall,
  isStepCount,
  type ModelMessage,
  streamText,
  type ToolSet,
  tool,
  type UIMessageChunk,
  zodSchema
} from "ai";
import { z } from "zod";
import { CHAT_ROOM_PARENT } from "@/server/agents/room/parent";
import { addUsage, toTokenUsage } from "@/server/domain/budgets/token-usage";
import { modelFailure } from "@/server/domain/facets/facet-errors";
import { personaSystemPrompt } from "@/server/domain/personas/persona-context";
import { FacetSpans } from "@/server/domain/tracing/facet-spans";
import { coalesceDeltas } from "@/server/domain/turns/coalesce-deltas";
import { createRoomTools, type HistorySearchHit } from "@/server/domain/turns/room-tools";
import type { Env } from "@/server/env";
import { logModelError } from "@/server/log";
import { MODEL_MAX_RETRIES, readModelConfig, resolveModel } from "@/server/model/provider";
import type { StructuredError } from "@/shared/budgets";
import type { Persona } from "@/shared/personas";
import type { TokenUsage } from "@/shared/protocol";
import { ReactionBody } from "@/shared/reactions";

/** Notes a persona keeps per room; the oldest go first. */
const MAX_NOTES = 100;
const MAX_NOTE_LENGTH = 1_000;
/** Notes placed in the persona's context on every answer (newest first). */
const NOTES_IN_CONTEXT = 20;
/** Model steps (tool rounds) per persona answer. */
const MAX_PERSONA_STEPS = 4;
/** The notes tools' inputs, wrapped for the AI SDK once, not per answer (see domain/turns/room-tools.ts). */
const rememberInput = zodSchema(z.object({ note: z.string().trim().min(1).max(MAX_NOTE_LENGTH) }));
const recallInput = zodSchema(z.object({ query: z.string().trim().max(200).optional() }));
/** The same check as a person's reaction (shared/reactions.ts). */
const reactInput = zodSchema(z.object({ emoji: ReactionBody.shape.emoji }));

export interface PersonaAnswerRequest {
  runId: string;
  persona: Persona;
  room: { name: string; model: string | null; temperature: number | null; messageCount: number };
  /** The room's transcript as this persona sees it (see persona-context.ts). */
  messages: ModelMessage[];
  /** The room's memory, the same pins and summaries the assistant sees (room/room-memory.ts). */
  memory?: string;
  /** Extra instructions for this answer (a panel question, say). */
  instructions?: string;
  /**
   * The question this persona may react to instead of answering (the `react`
   * tool); absent where an answer in words is owed (a panel, a regeneration).
   */
  reactTo?: string;
  /** The persona's span in the room's trace: its model calls are reported under it (domain/tracing/facet-spans.ts). */
  traceparent?: string | null;
}

export interface PersonaFootprint {
  notes: number;
  answers: number;
  usage: TokenUsage;
}

type NoteRow = { id: number; text: string; created_at: number };
type UsageRow = { answers: number; input_tokens: number; output_tokens: number; total_tokens: number };

export class PersonaAgent extends Agent<Env> {
  /** Answers in flight, so the room can stop one by id. */
  #runs = new Map<string, AbortController>();

  async onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS persona_notes (
      id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, created_at INTEGER NOT NULL)`;
    this.sql`CREATE TABLE IF NOT EXISTS persona_usage (
      id INTEGER PRIMARY KEY CHECK (id = 1), answers INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL, total_tokens INTEGER NOT NULL)`;
  }

  // ── Notes ──

  remember(text: string): { saved: true; notes: number } {
    const note = text.trim().slice(0, MAX_NOTE_LENGTH);
    this.sql`INSERT INTO persona_notes (text, created_at) VALUES (${note}, ${Date.now()})`;
    this
      .sql`DELETE FROM persona_notes WHERE id NOT IN (SELECT id FROM persona_notes ORDER BY id DESC LIMIT ${MAX_NOTES})`;
    return { saved: true, notes: this.#noteCount() };
  }

  recall(query?: string, limit = NOTES_IN_CONTEXT): string[] {
    const rows = query?.trim()
      ? this
          .sql<NoteRow>`SELECT * FROM persona_notes WHERE text LIKE ${`%${query.trim()}%`} ORDER BY id DESC LIMIT ${limit}`
      : this.sql<NoteRow>`SELECT * FROM persona_notes ORDER BY id DESC LIMIT ${limit}`;
    return rows.map((row) => row.text);
  }

  /** What this facet's storage holds: lets tests prove a delete wiped it. */
  footprint(): PersonaFootprint {
    const usage = this.#usage();
    return {
      notes: this.#noteCount(),
      answers: usage.answers,
      usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, totalTokens: usage.total_tokens }
    };
  }

  // ── Answers ──

  /**
   * Runs one answer and returns its UI message chunks as NDJSON bytes.
   * Cancelling the returned stream (or `stop(runId)`) aborts the upstream
   * model request.
   */
  answer(request: PersonaAnswerRequest): ReadableStream<Uint8Array> {
    const abort = new AbortController();
    this.#runs.set(request.runId, abort);
    const { persona } = request;
    const config = readModelConfig(this.env);
    const settings = { model: persona.model ?? request.room.model };
    const temperature = persona.temperature ?? request.room.temperature;
    const system = personaSystemPrompt(persona, request.room.name, this.recall(), request.instructions, request.memory);
    const spans = FacetSpans.from(request.traceparent, async (report) =>
      (await this.parentAgent(CHAT_ROOM_PARENT)).reportSpan(report)
    );
    const { model, modelId } = resolveModel(config, settings, {
      roomName: request.room.name,
      messageCount: request.room.messageCount,
      systemPrompt: persona.systemPrompt || null,
      speaker: persona.name
    });

    const result = streamText({
      model: spans ? spans.traceModel(model, modelId) : model,
      system,
      messages: request.messages,
      tools: this.#tools(persona, request.reactTo),
      // A reaction is the whole answer: no model step after it.
      stopWhen: [isStepCount(MAX_PERSONA_STEPS), hasToolCall("react")],
      // Per-stream delta coalescing, as in the room's own turns (domain/turns/coalesce-deltas.ts).
      experimental_transform: coalesceDeltas(),
      ...(temperature !== null ? { temperature } : {}),
      maxRetries: MODEL_MAX_RETRIES,
      abortSignal: abort.signal,
      // The SDK's default logs the whole error, prompt included.
      onError: logModelError,
      onFinish: ({ totalUsage }) => this.#recordUsage(toTokenUsage(totalUsage))
    });
    // Why it failed goes to the room as a value, with the error chunk (domain/facets/facet-errors.ts).
    let failure: StructuredError | null = null;
    const chunks = result
      .toUIMessageStream({
        onError: (error) => {
          failure = modelFailure(error, config);
          return failure.message;
        },
        messageMetadata: ({ part }) => (part.type === "finish" ? { usage: toTokenUsage(part.totalUsage) } : undefined)
      })
      .getReader();

    const encoder = new TextEncoder();
    const finish = () => this.#runs.delete(request.runId);
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await chunks.read();
        if (done) {
          finish();
          // The room has every span of this answer before it sees the answer end.
          await spans?.flush();
          controller.close();
          return;
        }
        const line = value.type === "error" && failure ? { ...value, failure } : (value satisfies UIMessageChunk);
        controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
      },
      cancel(reason) {
        abort.abort(reason);
        finish();
        void chunks.cancel(reason).catch(() => {});
      }
    });
  }

  stop(runId: string): boolean {
    const run = this.#runs.get(runId);
    run?.abort(new Error("Stopped."));
    return run !== undefined;
  }

  // ── Helpers ──

  #tools(persona: Persona, reactTo: string | undefined): ToolSet {
    const room = createRoomTools({
      now: () => new Date(),
      searchHistory: (query, limit) => this.#searchRoom(query, limit),
      searchFiles: async (query, limit) => (await this.parentAgent(CHAT_ROOM_PARENT)).searchFiles(query, limit)
    });
    const all: ToolSet = {
      ...(reactTo
        ? {
            react: tool({
              description:
                "React to the message you were asked about with one emoji instead of answering, when a reaction " +
                "says all you would say (thanks, agreement, acknowledgement). Your answer ends with the reaction: " +
                "write nothing else.",
              inputSchema: reactInput,
              // The room writes the reaction under this persona's name (it checks the persona is in its roster).
              execute: async ({ emoji }) =>
                (await this.parentAgent(CHAT_ROOM_PARENT)).reactAsPersona(persona.id, reactTo, emoji)
            })
          }
        : {}),
      ...room,
      remember: tool({
        description:
          "Save a short private note about this room for yourself (a fact, a preference, a decision). " +
          "Only you can read your notes; they are in your context on every later answer.",
        inputSchema: rememberInput,
        execute: async ({ note }) => this.remember(note)
      }),
      recall: tool({
        description: "Read your private notes about this room, optionally only those containing some words.",
        inputSchema: recallInput,
        execute: async ({ query }) => ({ notes: this.recall(query) })
      })
    };
    return Object.fromEntries(Object.entries(all).filter(([name]) => (persona.tools as string[]).includes(name)));
  }

  async #searchRoom(query: string, limit: number): Promise<HistorySearchHit[]> {
    const room = await this.parentAgent(CHAT_ROOM_PARENT);
    return room.searchHistory(query, limit);
  }

  #noteCount(): number {
    return this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM persona_notes`[0]?.n ?? 0;
  }

  #usage(): UsageRow {
    return (
      this
        .sql<UsageRow>`SELECT answers, input_tokens, output_tokens, total_tokens FROM persona_usage WHERE id = 1`[0] ?? {
        answers: 0,
        input_tokens: 0,
        output_tokens: 0,
        total_tokens: 0
      }
    );
  }

  #recordUsage(usage: TokenUsage) {
    const row = this.#usage();
    const total = addUsage(
      { inputTokens: row.input_tokens, outputTokens: row.output_tokens, totalTokens: row.total_tokens },
      usage
    );
    this.sql`INSERT INTO persona_usage (id, answers, input_tokens, output_tokens, total_tokens)
      VALUES (1, ${row.answers + 1}, ${total.inputTokens}, ${total.outputTokens}, ${total.totalTokens})
      ON CONFLICT (id) DO UPDATE SET answers = excluded.answers, input_tokens = excluded.input_tokens,
        output_tokens = excluded.output_tokens, total_tokens = excluded.total_tokens`;
  }
}
