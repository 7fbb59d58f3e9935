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
 * (domain/delegation.ts) end the task through `stopWhen`; the limit hit is
 * kept in this facet's SQLite so the room can say why the task ended.
 */
import { AIChatAgent, type OnChatMessageOptions } from "@cloudflare/ai-chat";
import { convertToModelMessages, streamText, type ToolSet, tool, type UIMessage } from "ai";
import { z } from "zod";
import { limitMessage, limitReached, TASK_SYSTEM_PROMPT, type TaskLimit, taskPrompt } from "../domain/delegation";
import { describeModelError } from "../domain/model-errors";
import { createRoomTools } from "../domain/room-tools";
import type { Env } from "../env";
import { MODEL_MAX_RETRIES, readModelConfig, resolveModel } from "../model/provider";

export interface TaskInput {
  task: string;
  excerpts?: string[];
}

export class TaskAgent extends AIChatAgent<Env> {
  async onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS task_limit (id INTEGER PRIMARY KEY CHECK (id = 1), message TEXT NOT NULL)`;
  }

  protected formatAgentToolInput(input: unknown, request: { runId: string }): UIMessage {
    const { task, excerpts } = input as TaskInput;
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
    const message = limitMessage(limit, detail);
    this.sql`INSERT INTO task_limit (id, message) VALUES (1, ${message}) ON CONFLICT (id) DO NOTHING`;
  }

  async onChatMessage(_onFinish: unknown, options?: OnChatMessageOptions) {
    const config = readModelConfig(this.env);
    const { model } = resolveModel(
      config,
      { model: null },
      { roomName: "a delegated task", messageCount: this.messages.length, systemPrompt: null, speaker: "a task" }
    );
    const tools: ToolSet = {
      get_current_time: createRoomTools({ now: () => new Date(), searchHistory: async () => [] }).get_current_time,
      // Present so a model that tries gets the clear refusal, not an unknown tool.
      delegate: tool({
        description: "Delegation is not available inside a task.",
        inputSchema: z.object({ task: z.string() }),
        execute: async () => {
          this.#recordLimit("depth");
          return { ok: false, error: limitMessage("depth") };
        }
      })
    };
    const result = streamText({
      model,
      system: TASK_SYSTEM_PROMPT,
      messages: await convertToModelMessages(this.messages),
      tools,
      stopWhen: ({ steps }) => {
        const hit = limitReached(steps);
        if (hit) this.#recordLimit(hit.limit, hit.detail);
        return hit !== null;
      },
      maxRetries: MODEL_MAX_RETRIES,
      abortSignal: options?.abortSignal
    });
    return result.toUIMessageStreamResponse({ onError: (error) => describeModelError(error, config) });
  }
}
