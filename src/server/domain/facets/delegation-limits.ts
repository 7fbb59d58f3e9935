/**
 * Delegation limits and the checks that enforce them. Each limit is a named
 * constant and each refusal a sentence the assistant (and so the room) can
 * read. Pure: unit-tested in Node.
 */

/** Tasks cannot delegate further: the room's assistant is depth 0, its tasks depth 1. */
const MAX_DELEGATION_DEPTH = 1;
/** Tasks running at once per room (sync and background together). */
export const MAX_TASKS_PER_ROOM = 3;
/** Model steps (tool rounds) per task, unless TASK_MAX_STEPS says otherwise. */
export const MAX_TASK_STEPS = 8;
/** Tokens (input + output, all steps) per task, unless TASK_MAX_TOKENS says otherwise. */
export const MAX_TASK_TOKENS = 20_000;
/** Wall time per task, unless TASK_WALL_TIME_MS says otherwise. */
const TASK_WALL_TIME_MS = 120_000;
/** The same tool with the same arguments this many times ends the task. */
export const LOOP_REPEAT_LIMIT = 3;
export const MAX_TASK_LENGTH = 4_000;
export const MAX_EXCERPTS = 10;
export const MAX_EXCERPT_LENGTH = 2_000;

/** The per-task limits a deployment may tune. */
export interface TaskLimits {
  maxSteps: number;
  maxTokens: number;
  wallTimeMs: number;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = {
  maxSteps: MAX_TASK_STEPS,
  maxTokens: MAX_TASK_TOKENS,
  wallTimeMs: TASK_WALL_TIME_MS
};

/** Each setting, the variable that sets it, and the range it must fall in (inclusive). */
const TASK_LIMIT_VARIABLES = {
  maxSteps: { name: "TASK_MAX_STEPS", min: 1, max: 50 },
  maxTokens: { name: "TASK_MAX_TOKENS", min: 100, max: 2_000_000 },
  wallTimeMs: { name: "TASK_WALL_TIME_MS", min: 1_000, max: 60 * 60_000 }
} as const satisfies Record<keyof TaskLimits, { name: string; min: number; max: number }>;

export type TaskLimitVariables = Partial<Record<(typeof TASK_LIMIT_VARIABLES)[keyof TaskLimits]["name"], string>>;

/**
 * The task limits from the deployment's variables. A value that is not a
 * whole number in its range is not used: the default holds, and `problems`
 * says which variable was ignored and why (the caller logs it).
 */
export function readTaskLimits(vars: TaskLimitVariables): { limits: TaskLimits; problems: string[] } {
  const limits = { ...DEFAULT_TASK_LIMITS };
  const problems: string[] = [];
  for (const key of Object.keys(TASK_LIMIT_VARIABLES) as (keyof TaskLimits)[]) {
    const { name, min, max } = TASK_LIMIT_VARIABLES[key];
    const raw = vars[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (/^\d+$/.test(raw) && value >= min && value <= max) limits[key] = value;
    else
      problems.push(`${name}=${raw.slice(0, 40)} is not a whole number from ${min} to ${max}; using ${limits[key]}.`);
  }
  return { limits, problems };
}

export type TaskLimit = "depth" | "tasks" | "steps" | "tokens" | "wall_time" | "loop";

export function limitMessage(limit: TaskLimit, detail = "", limits: TaskLimits = DEFAULT_TASK_LIMITS): string {
  switch (limit) {
    case "depth":
      return `Tasks cannot delegate: the nesting depth is limited to ${MAX_DELEGATION_DEPTH}.`;
    case "tasks":
      return `This room already runs ${MAX_TASKS_PER_ROOM} tasks, the most at once. Wait for one to finish.`;
    case "steps":
      return `The task used its ${limits.maxSteps} steps without finishing and was ended.`;
    case "tokens":
      return `The task used more than ${limits.maxTokens} tokens and was ended.`;
    case "wall_time":
      return `The task ran longer than ${formatSeconds(limits.wallTimeMs)} and was stopped.`;
    case "loop":
      return `The task called ${detail || "a tool"} with the same arguments ${LOOP_REPEAT_LIMIT} times and was ended (loop detection).`;
  }
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

type StepLike = {
  toolCalls?: ReadonlyArray<{ toolName: string; input?: unknown }>;
  usage?: { totalTokens?: number | undefined; inputTokens?: number | undefined; outputTokens?: number | undefined };
};

/** The first limit the steps so far have hit, or null. */
export function limitReached(
  steps: readonly StepLike[],
  limits: Pick<TaskLimits, "maxSteps" | "maxTokens"> = DEFAULT_TASK_LIMITS
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
  if (tokens > limits.maxTokens) return { limit: "tokens" };
  const last = steps.at(-1);
  if (steps.length >= limits.maxSteps && (last?.toolCalls?.length ?? 0) > 0) return { limit: "steps" };
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
