/**
 * The room assistant's `delegate` tool. Hand-written around the framework's
 * `runAgentTool` rather than `agentTool()`, because one tool must offer both
 * modes (wait for the result, or run in the background and post it later)
 * and enforce the room's limits before a child is spawned; `runAgentTool`
 * still does the work: it spawns the TaskAgent facet, streams its turn,
 * bridges the abort signal (Stop ends a waiting task), bounds background
 * runs by `maxBudgetMs` and calls back by method name after eviction.
 */

import type { AIChatAgent } from "@cloudflare/ai-chat";
import type { AgentToolLifecycleResult, AgentToolRunInfo, DynamicAgentStub } from "agents";
import { type Tool, tool, type UIMessage, zodSchema } from "ai";
import { z } from "zod";
import { TaskAgent, type TaskInput } from "@/server/agents/task-agent";
import {
  limitMessage,
  MAX_EXCERPT_LENGTH,
  MAX_EXCERPTS,
  MAX_TASK_LENGTH,
  MAX_TASKS_PER_ROOM,
  type TaskLimits
} from "@/server/domain/facets/delegation-limits";
import { FACET_RETRY_BACKOFF_MS, facetUnreachable, pause, shouldRetry } from "@/server/domain/facets/facet-errors";
import type { Env } from "@/server/env";
import type { StructuredError } from "@/shared/budgets";
import type { AnswerErrorCode } from "@/shared/errors";
import type { MessageMetadata, RoomState, TokenUsage } from "@/shared/protocol";
import type { AgentRun } from "./turn-trace";

/** A task as the live tree names it: the start of what was asked. */
function taskName(task: string): string {
  const line = task.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

const TERMINAL = ["completed", "error", "aborted", "interrupted"] as const;

/** Wrapped once, not per turn (see room-tools.ts). */
const delegateInput = zodSchema(
  z.object({
    task: z.string().trim().min(1).max(MAX_TASK_LENGTH).describe("A self-contained task: everything the agent needs."),
    excerpts: z
      .array(z.string().max(MAX_EXCERPT_LENGTH))
      .max(MAX_EXCERPTS)
      .optional()
      .describe("Exact excerpts from the room the task needs; the task agent sees nothing else."),
    background: z
      .boolean()
      .optional()
      .describe("true: answer now and post the task's result in the room when done. false (default): wait for it.")
  })
);

interface TaskOutcome {
  ok: boolean;
  status: string;
  result?: string;
  limit?: string;
  error?: string;
  /** With `error`: its code (domain/facets/facet-errors.ts). */
  errorCode?: AnswerErrorCode;
  taskId?: string;
  background?: boolean;
}

type RoomAgent = AIChatAgent<Env, RoomState>;

export class RoomDelegation {
  /**
   * Tasks this room runs now (in memory: a wake forgets finished ones
   * anyway), each from the moment its delegate call passes the cap: a slot
   * is taken before anything is awaited, or parallel calls in one step
   * would all pass the check.
   */
  #running = new Set<string>();
  /** Waited-for tasks that ended, whose facets go once the turn's answer is stored. */
  #ended = new Set<string>();
  /** Tasks someone stopped from their card (so an abort is not taken for the wall time). */
  #stopped = new Set<string>();

  /** Background tasks' spans and live nodes, until their finish callback. */
  #background = new Map<string, AgentRun | undefined>();

  constructor(
    private readonly room: RoomAgent,
    private readonly post: (message: UIMessage) => Promise<void>,
    private readonly limits: () => TaskLimits,
    /** Tracing and budgets: the task's span under its delegate call and live node; its usage charged to the day. */
    private readonly hooks: {
      startRun?: (runId: string, name: string, toolCallId: string) => AgentRun;
      charge?: (usage: TokenUsage) => void;
    } = {}
  ) {}

  tool(): Tool {
    return tool({
      description:
        "Hand a self-contained task to a separate task agent with its own context (only the task and the excerpts " +
        "you pass). Use it for focused sub-work. Set background to true for long work whose result can arrive later.",
      inputSchema: delegateInput,
      execute: (input, { toolCallId, abortSignal }) => this.#delegate(input, toolCallId, abortSignal)
    });
  }

  async #delegate(input: TaskInput & { background?: boolean }, toolCallId: string, abortSignal?: AbortSignal) {
    if (this.#running.size >= MAX_TASKS_PER_ROOM) {
      return { ok: false, status: "refused", error: limitMessage("tasks") } satisfies TaskOutcome;
    }
    const runId = crypto.randomUUID();
    this.#running.add(runId);
    try {
      return await this.#delegateIn(runId, input, toolCallId, abortSignal);
    } finally {
      // A background task keeps its slot until its finish callback.
      if (!this.#background.has(runId)) this.#running.delete(runId);
    }
  }

  /** A delegate call that holds the slot `runId`. */
  async #delegateIn(
    runId: string,
    input: TaskInput & { background?: boolean },
    toolCallId: string,
    abortSignal?: AbortSignal
  ) {
    const trace = this.hooks.startRun?.(runId, taskName(input.task), toolCallId);
    const taskInput: TaskInput = {
      task: input.task,
      excerpts: input.excerpts ?? [],
      ...(trace?.traceparent ? { traceparent: trace.traceparent } : {})
    };
    const limits = this.limits();
    if (input.background) {
      const run = await this.room.runAgentTool(TaskAgent, {
        runId,
        input: taskInput,
        inputPreview: { task: taskInput.task, excerpts: taskInput.excerpts },
        parentToolCallId: toolCallId,
        detached: { onFinish: "onTaskFinished", maxBudgetMs: limits.wallTimeMs }
      });
      if (run.status === "error") {
        trace?.end("error", "task:error");
        return { ok: false, status: "error", error: run.error } satisfies TaskOutcome;
      }
      // Its span closes with the turn; its node stays in the live tree until it
      // finishes, and its slot stays taken until then (finished() frees it).
      this.#background.set(run.runId, trace);
      this.#running.add(run.runId);
      return {
        ok: true,
        status: "running",
        background: true,
        taskId: run.runId,
        result: "The task runs in the background; its result will be posted in the room."
      } satisfies TaskOutcome;
    }
    const wall = AbortSignal.timeout(limits.wallTimeMs);
    const signal = abortSignal ? AbortSignal.any([abortSignal, wall]) : wall;
    let attempt = { runId, trace };
    for (let n = 1; ; n++) {
      const { outcome, failure } = await this.#runOnce(attempt.runId, attempt.trace, input, toolCallId, signal, wall);
      if (signal.aborted || !shouldRetry(failure, n, Boolean(outcome.result))) return outcome;
      // One more try, after a pause, as a new run; the failed one's span keeps why (domain/facets/facet-errors.ts).
      await pause(FACET_RETRY_BACKOFF_MS, signal);
      if (signal.aborted) return outcome;
      const retryId = crypto.randomUUID();
      attempt = {
        runId: retryId,
        trace: this.hooks.startRun?.(retryId, `${taskName(input.task)} (retry)`, toolCallId)
      };
    }
  }

  /** One run of a waited-for task, and why it failed as a value (null when it did not). */
  async #runOnce(
    runId: string,
    trace: AgentRun | undefined,
    input: TaskInput,
    toolCallId: string,
    signal: AbortSignal,
    wall: AbortSignal
  ): Promise<{ outcome: TaskOutcome; failure: StructuredError | null }> {
    const taskInput: TaskInput = {
      task: input.task,
      excerpts: input.excerpts ?? [],
      ...(trace?.traceparent ? { traceparent: trace.traceparent } : {})
    };
    let failure: StructuredError | null = null;
    let spanStatus: "ok" | "error" | "stopped" = "error";
    let errorCode: AnswerErrorCode | null = null;
    try {
      const run = await this.room.runAgentTool(TaskAgent, {
        runId,
        input: taskInput,
        parentToolCallId: toolCallId,
        signal
      });
      const limit =
        (await this.#limitOf(run.runId)) ?? (wall.aborted ? limitMessage("wall_time", "", this.limits()) : null);
      await this.#charge(run.runId);
      if (run.status === "error" && !limit) {
        failure = (await this.#failureOf(run.runId)) ?? {
          code: "upstream:model",
          message: run.error ?? "The task failed.",
          retryable: false
        };
      }
      spanStatus = run.status === "completed" && !limit ? "ok" : run.status === "aborted" ? "stopped" : "error";
      errorCode = failure?.code ?? (limit ? "task:limit" : spanStatus === "error" ? "task:error" : null);
      return {
        failure,
        outcome: {
          ok: run.status === "completed" && !limit,
          status: run.status,
          taskId: run.runId,
          result: run.summary ?? "",
          ...(limit ? { limit } : {}),
          ...(failure ? { error: failure.message, errorCode: failure.code } : run.error ? { error: run.error } : {})
        }
      };
    } catch (error) {
      console.warn("[RoomDelegation] the task run failed:", error);
      failure = facetUnreachable("The task agent");
      errorCode = failure.code;
      return {
        failure,
        outcome: { ok: false, status: "error", taskId: runId, error: failure.message, errorCode: failure.code }
      };
    } finally {
      trace?.end(spanStatus, errorCode);
      this.#ended.add(runId);
    }
  }

  /** A task's card asked to stop it. Only runs of this room's tasks; unknown ids change nothing. */
  async stop(runId: string): Promise<boolean> {
    if (!this.room.hasAgentToolRun(TaskAgent, runId)) return false;
    this.#stopped.add(runId);
    await this.room.cancelAgentTool(runId, "Stopped from the room.");
    return true;
  }

  /** Background task done: post its result as a message from that task, then remove its facet. */
  async finished(run: AgentToolRunInfo, result: AgentToolLifecycleResult) {
    this.#running.delete(run.runId);
    const trace = this.#background.get(run.runId);
    this.#background.delete(run.runId);
    trace?.end(result.status === "completed" ? "ok" : result.status === "aborted" ? "stopped" : "error");
    await this.#charge(run.runId);
    const asked = (run.inputPreview as TaskInput | undefined)?.task ?? "";
    const limit = await this.#limitOf(run.runId);
    const stoppedHere = this.#stopped.delete(run.runId);
    // At its budget the framework gives up on the run and tears the child
    // down; which of the two is reported first is a race: "interrupted"
    // (budget-exceeded) or the child's own "aborted".
    const overTime =
      result.status === "aborted" && !stoppedHere && Date.now() - run.startedAt >= this.limits().wallTimeMs;
    const budget = (result.status === "interrupted" && result.reason === "budget-exceeded") || overTime;
    const ending = limit ?? (budget ? limitMessage("wall_time", "", this.limits()) : null);
    const text =
      result.status === "completed" && !ending
        ? result.summary || "(The task finished without a result.)"
        : (ending ?? result.error ?? `The task ended: ${result.status}.`);
    const metadata: MessageMetadata = {
      createdAt: Date.now(),
      task: { id: run.runId, asked: asked.slice(0, 200), status: result.status },
      ...(result.status !== "completed" || ending ? { error: ending ?? result.error ?? result.status } : {})
    };
    await this.post({ id: `task_${run.runId}`, role: "assistant", parts: [{ type: "text", text }], metadata });
    await this.room.dynamicAgents.delete(TaskAgent, run.runId);
    await this.removeFinished();
  }

  /**
   * Finished tasks' facets go once their results are in the transcript.
   * Not while a background task runs: its finish callback still needs its run.
   */
  async removeFinished(): Promise<void> {
    if (this.#running.size > 0) return;
    // clearAgentToolRuns deletes each child through the class it looks up in
    // ctx.exports, which from inside a facet (a room) missed the task's facet
    // and left it behind, silently (tests/worker/delegation.test.ts). So the
    // facets of the runs that ended here are deleted by their class first.
    for (const runId of this.#ended) {
      await this.room.dynamicAgents.delete(TaskAgent, runId);
      this.#ended.delete(runId);
    }
    await this.room.clearAgentToolRuns({ status: [...TERMINAL] });
  }

  /** The task's provider-reported usage counts against the room's (and so the workspace's) daily budget. */
  async #charge(runId: string) {
    const charge = this.hooks.charge;
    if (!charge) return;
    await this.#askTask(runId, "usage", async (task) => charge(await task.usage()));
  }

  #failureOf(runId: string): Promise<StructuredError | null> {
    return this.#askTask(runId, "failure", (task) => task.failure());
  }

  #limitOf(runId: string): Promise<string | null> {
    return this.#askTask(runId, "limit", (task) => task.limitHit());
  }

  /** Best effort: what the task's facet says, or null (logged) when it cannot be asked. */
  async #askTask<T>(runId: string, what: string, ask: (task: DynamicAgentStub<TaskAgent>) => Promise<T>) {
    try {
      return await ask(await this.room.dynamicAgents.get(TaskAgent, runId));
    } catch (error) {
      console.warn(`[RoomDelegation] could not read the task's ${what}:`, error);
      return null;
    }
  }
}
