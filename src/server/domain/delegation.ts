/**
 * Delegation limits and the checks that enforce them. Each limit is a named
 * constant and each refusal a sentence the assistant (and so the room) can
 * read. Pure: unit-tested in Node.
 */

/** Tasks cannot delegate further: the room's assistant is depth 0, its tasks depth 1. */
const MAX_DELEGATION_DEPTH = 1;
/** Tasks running at once per room (sync and background together). */
export const MAX_TASKS_PER_ROOM = 3;
/** Model steps (tool rounds) per task. */
export const MAX_TASK_STEPS = 8;
/** Tokens (input + output, all steps) per task. */
export const MAX_TASK_TOKENS = 20_000;
/** Wall time per task. */
export const TASK_WALL_TIME_MS = 120_000;
/** The same tool with the same arguments this many times ends the task. */
export const LOOP_REPEAT_LIMIT = 3;
export const MAX_TASK_LENGTH = 4_000;
export const MAX_EXCERPTS = 10;
export const MAX_EXCERPT_LENGTH = 2_000;

export type TaskLimit = "depth" | "tasks" | "steps" | "tokens" | "wall_time" | "loop";

export function limitMessage(limit: TaskLimit, detail = ""): string {
  switch (limit) {
    case "depth":
      return `Tasks cannot delegate: the nesting depth is limited to ${MAX_DELEGATION_DEPTH}.`;
    case "tasks":
      return `This room already runs ${MAX_TASKS_PER_ROOM} tasks, the most at once. Wait for one to finish.`;
    case "steps":
      return `The task used its ${MAX_TASK_STEPS} steps without finishing and was ended.`;
    case "tokens":
      return `The task used more than ${MAX_TASK_TOKENS} tokens and was ended.`;
    case "wall_time":
      return `The task ran longer than ${Math.round(TASK_WALL_TIME_MS / 1000)} s and was stopped.`;
    case "loop":
      return `The task called ${detail || "a tool"} with the same arguments ${LOOP_REPEAT_LIMIT} times and was ended (loop detection).`;
  }
}

type StepLike = {
  toolCalls?: ReadonlyArray<{ toolName: string; input?: unknown }>;
  usage?: { totalTokens?: number | undefined; inputTokens?: number | undefined; outputTokens?: number | undefined };
};

/** The first limit the steps so far have hit, or null. */
export function limitReached(
  steps: readonly StepLike[],
  maxSteps = MAX_TASK_STEPS
): { limit: TaskLimit; detail?: string } | null {
  const seen = new Map<string, number>();
  for (const step of steps) {
    for (const call of step.toolCalls ?? []) {
      const key = `${call.toolName}:${JSON.stringify(call.input ?? {})}`;
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      if (count >= LOOP_REPEAT_LIMIT) return { limit: "loop", detail: call.toolName };
    }
  }
  let tokens = 0;
  for (const step of steps) {
    const usage = step.usage;
    tokens += usage?.totalTokens ?? (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
  }
  if (tokens > MAX_TASK_TOKENS) return { limit: "tokens" };
  const last = steps.at(-1);
  if (steps.length >= maxSteps && (last?.toolCalls?.length ?? 0) > 0) return { limit: "steps" };
  return null;
}

/** What the task agent is asked: the task and only the excerpts the assistant chose. */
export function taskPrompt(task: string, excerpts: readonly string[]): string {
  if (excerpts.length === 0) return task;
  return [task, "", "Excerpts from the room:", ...excerpts.map((e) => `> ${e.replace(/\n/g, "\n> ")}`)].join("\n");
}

export const TASK_SYSTEM_PROMPT =
  "You are a task agent: you work alone on one self-contained task and report the result. You see only the task " +
  "and the excerpts you were given, not the room. Finish with a concise result.";
