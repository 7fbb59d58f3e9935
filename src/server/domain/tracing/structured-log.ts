/**
 * Structured logs: one JSON object per line, so Workers Logs (and `wrangler
 * tail`) can filter on fields. Fields are ids, names, numbers and codes only:
 * the type has no place for message text, prompts or tool arguments, and no
 * caller should widen it to one.
 */
import type { AnswerErrorCode } from "@/shared/errors";
export interface LogFields {
  event: string;
  traceId?: string;
  spanId?: string;
  parentSpanId?: string | null;
  room?: string;
  workspace?: string;
  agent?: string;
  name?: string;
  status?: string;
  model?: string | null;
  durationMs?: number;
  inputTokens?: number | null;
  outputTokens?: number | null;
  errorCode?: AnswerErrorCode | null;
  count?: number;
}

export type LogLevel = "info" | "warn" | "error";

export function logLine(level: LogLevel, fields: LogFields, now = Date.now()): string {
  const entry: Record<string, unknown> = { level, ts: new Date(now).toISOString() };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) entry[key] = value;
  return JSON.stringify(entry);
}

export function log(level: LogLevel, fields: LogFields): void {
  const line = logLine(level, fields);
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
