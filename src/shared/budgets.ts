/**
 * Daily token budgets: a room's (a room setting) and its workspace's (a
 * workspace setting). 0 means unlimited; a room's null means the server's
 * default (ROOM_DAILY_TOKEN_BUDGET).
 */
import { z } from "zod";
import type { AnswerErrorCode } from "./errors";

/** The largest budget a setting accepts (tokens per UTC day). */
const MAX_DAILY_TOKEN_BUDGET = 1_000_000_000;

export const DailyTokenBudget = z
  .number({ error: "dailyTokenBudget must be a number" })
  .int("dailyTokenBudget must be a whole number")
  .min(0, "dailyTokenBudget must be 0 (unlimited) or more")
  .max(MAX_DAILY_TOKEN_BUDGET, `dailyTokenBudget must be at most ${MAX_DAILY_TOKEN_BUDGET}`);

export const UpdateWorkspaceSettingsBody = z
  .strictObject({ dailyTokenBudget: DailyTokenBudget.optional() })
  .refine((b) => Object.keys(b).length > 0, "give dailyTokenBudget");
export type UpdateWorkspaceSettingsBody = z.infer<typeof UpdateWorkspaceSettingsBody>;

export interface WorkspaceSettings {
  dailyTokenBudget: number;
}

/** A cross-facet failure as a value: what the UI shows and whether trying again may help. */
export interface StructuredError {
  code: AnswerErrorCode;
  message: string;
  retryable: boolean;
}
