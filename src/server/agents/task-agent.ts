/**
 * TaskAgent: a short-lived facet of a room that works on one delegated task.
 *
 *   OverseerAgent → ChatRoom → TaskAgent (<runId>)
 *
 * It is an `AIChatAgent` because the framework's agent tools
 * (`runAgentTool`, see room/delegation.ts) run chat-capable children: they
 * start the child's turn headlessly, stream it, bridge the abort signal and
 * retain the run. Its context is only the task and the excerpts the room's
 * assistant passed (`formatAgentToolInput`), never the room. Limits
 * (domain/facets/delegation-limits.ts) end the task through `stopWhen`; the limit hit is
 * kept in this facet's SQLite so the room can say why the task ended.
 */
import { AIChatAgent, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import { convertToModelMessages, streamText, type ToolSet, tool, type UIMessage, zodSchema } from "ai";
import { z } from "zod";
import { CHAT_ROOM_PARENT } from "@/server/agents/room/parent";
import { toTokenUsage } from "@/server/domain/budgets/token-usage";
import {
  limitMessage,
  limitReached,
  readTaskLimits,
  TASK_SYSTEM_PROMPT,
  type TaskLimit,
  type TaskLimits,
  taskPrompt
} from "@/server/domain/facets/delegation-limits";
import { modelFailure, readStructuredError } from "@/server/domain/facets/facet-errors";
import { FacetSpans } from "@/server/domain/tracing/facet-spans";
import { createRoomTools } from "@/server/domain/turns/room-tools";
import type { Env } from "@/server/env";
import { MODEL_MAX_RETRIES, readModelConfig, resolveModel } from "@/server/model/provider";
import type { StructuredError } from "@/shared/budgets";
import type { TokenUsage } from "@/shared/protocol";

export interface TaskInput {
  task: string;
  excerpts?: string[];
  /** The task's span in the room's trace: its model calls are reported under it (domain/tracing/facet-spans.ts). */
  traceparent?: string | null;
}

const reported = new Set<string>();

/** The refused delegate tool's input, wrapped for the AI SDK once (see domain/turns/room-tools.ts). */
const refusedDelegateInput = zodSchema(z.object({ task: z.string() }));

/** The deployment's task limits (TASK_MAX_STEPS, TASK_MAX_TOKENS, TASK_WALL_TIME_MS); an invalid one is logged once. */
export function taskLimits(env: Env): TaskLimits {
  const { limits, problems } = readTaskLimits(env);
  for (const problem of problems) {
    if (reported.has(problem)) continue;
    reported.add(problem);
    console.warn(`[TaskAgent] ${problem}`);
  }
  return limits;
}

export class TaskAgent extends AIChatAgent<Env> {
  async onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS task_limit (id INTEGER PRIMARY KEY CHECK (id = 1), message TEXT NOT NULL)`;
    this.sql`CREATE TABLE IF NOT EXISTS task_run (id INTEGER PRIMARY KEY CHECK (id = 1), traceparent TEXT,
      input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
      total_tokens INTEGER NOT NULL DEFAULT 0, failure TEXT)`;
  }

  /** Why the task's model call failed, as a value (domain/facets/facet-errors.ts), or null. */
  failure(): StructuredError | null {
    const row = this.sql<{ failure: string | null }>`SELECT failure FROM task_run WHERE id = 1`[0];
    return row?.failure ? readStructuredError(JSON.parse(row.failure)) : null;
  }

  /** Tokens the provider reported for this task, all steps (the room charges them to its day). */
  usage(): TokenUsage {
    const row = this.sql<{ input_tokens: number; output_tokens: number; total_tokens: number }>`
      SELECT input_tokens, output_tokens, total_tokens FROM task_run WHERE id = 1`[0];
    return row
      ? { inputTokens: row.input_tokens, outputTokens: row.output_tokens, totalTokens: row.total_tokens }
      : { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  }

  protected formatAgentToolInput(input: unknown, request: { runId: string }): UIMessage {
    const { task, excerpts, traceparent } = input as TaskInput;
    this.sql`INSERT INTO task_run (id, traceparent) VALUES (1, ${typeof traceparent === "string" ? traceparent : null})
      ON CONFLICT (id) DO UPDATE SET traceparent = excluded.traceparent`;
    return {
      id: `task-${request.runId}-input`,
      role: "user",
      parts: [{ type: "text", text: taskPrompt(task, excerpts ?? []) }]
    };
  }

  /** Why the task was ended early, or null (the room reads it once the run is over). */
  limitHit(): string | null {
    return this.sql<{ message: string }>`SELECT message FROM task_limit WHERE id = 1`[0]?.message ?? null;
  }

  #recordLimit(limit: TaskLimit, detail?: string) {
    const message = limitMessage(limit, detail, taskLimits(this.env));
    this.sql`INSERT INTO task_limit (id, message) VALUES (1, ${message}) ON CONFLICT (id) DO NOTHING`;
  }

  async onChatMessage(_onFinish: unknown, options?: OnChatMessageOptions) {
    const config = readModelConfig(this.env);
    const traceparent = this.sql<{ traceparent: string | null }>`SELECT traceparent FROM task_run WHERE id = 1`[0];
    const spans = FacetSpans.from(traceparent?.traceparent, async (report) =>
      (await this.parentAgent(CHAT_ROOM_PARENT)).reportSpan(report)
    );
    const { model, modelId } = resolveModel(
      config,
      { model: null },
      { roomName: "a delegated task", messageCount: this.messages.length, systemPrompt: null, speaker: "a task" }
    );
    const tools: ToolSet = {
      get_current_time: createRoomTools({ now: () => new Date(), searchHistory: async () => [] }).get_current_time,
      // Present so a model that tries gets the clear refusal, not an unknown tool.
      delegate: tool({
        description: "Delegation is not available inside a task.",
        inputSchema: refusedDelegateInput,
        execute: async () => {
          this.#recordLimit("depth");
          return { ok: false, error: limitMessage("depth") };
        }
      })
    };
    const limits = taskLimits(this.env);
    const result = streamText({
      model: spans ? spans.traceModel(model, modelId) : model,
      system: TASK_SYSTEM_PROMPT,
      messages: await convertToModelMessages(this.messages),
      tools,
      stopWhen: ({ steps }) => {
        const hit = limitReached(steps, limits);
        if (hit) this.#recordLimit(hit.limit, hit.detail);
        return hit !== null;
      },
      maxRetries: MODEL_MAX_RETRIES,
      abortSignal: options?.abortSignal,
      onFinish: ({ totalUsage }) => this.#recordUsage(toTokenUsage(totalUsage))
    });
    const response = result.toUIMessageStreamResponse({
      onError: (error) => {
        const failure = modelFailure(error, config);
        this.sql`INSERT INTO task_run (id, failure) VALUES (1, ${JSON.stringify(failure)})
          ON CONFLICT (id) DO UPDATE SET failure = excluded.failure`;
        return failure.message;
      }
    });
    if (!spans || !response.body) return response;
    // The room has every span of this task before it sees the task end.
    const body = response.body.pipeThrough(new TransformStream({ flush: () => spans.flush() }));
    return new Response(body, { status: response.status, headers: response.headers });
  }

  #recordUsage(usage: TokenUsage) {
    this.sql`INSERT INTO task_run (id, input_tokens, output_tokens, total_tokens)
      VALUES (1, ${usage.inputTokens}, ${usage.outputTokens}, ${usage.totalTokens})
      ON CONFLICT (id) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens,
        output_tokens = output_tokens + excluded.output_tokens, total_tokens = total_tokens + excluded.total_tokens`;
  }
}
