/**
 * Who writes a summary: the room's own model, with the summariser's prompt
 * (domain/memory/summary-prompt.ts) and its own output budget; in an
 * offline room (no model), an extract of the span, labelled as one.
 */
import { generateText } from "ai";
import { toTokenUsage } from "@/server/domain/budgets/token-usage";
import type { MemoryBudgets } from "@/server/domain/memory/summary-plan";
import {
  extractiveMerge,
  extractiveSummary,
  mergeRequest,
  summaryRequest
} from "@/server/domain/memory/summary-prompt";
import { MODEL_MAX_RETRIES, type ModelConfig, resolveModel } from "@/server/model/provider";
import type { RoomSettings } from "@/shared/protocol";
import type { SummariseInput, WrittenSummary } from "./summary-writer";

/** The model label of an offline room's extract. */
const EXTRACT_MODEL = "extract";
/** A summary request that has not answered in this long is given up (the job tries again later). */
const SUMMARY_TIMEOUT_MS = 120_000;

export function summariser(
  config: () => ModelConfig,
  settings: () => RoomSettings,
  budgets: () => MemoryBudgets
): (input: SummariseInput) => Promise<WrittenSummary> {
  return async (input) => {
    const { summaryTokens } = budgets();
    const { model, modelId, offline } = resolveModel(config(), settings(), {
      roomName: settings().name,
      messageCount: 0,
      systemPrompt: null
    });
    if (offline) {
      const extract =
        input.kind === "span"
          ? extractiveSummary(input.messages, summaryTokens)
          : extractiveMerge(input.texts, summaryTokens);
      return { ...extract, model: EXTRACT_MODEL };
    }
    const request =
      input.kind === "span" ? summaryRequest(input.messages, summaryTokens) : mergeRequest(input.texts, summaryTokens);
    const result = await generateText({
      model,
      system: request.system,
      prompt: request.prompt,
      maxOutputTokens: summaryTokens,
      maxRetries: MODEL_MAX_RETRIES,
      abortSignal: AbortSignal.timeout(SUMMARY_TIMEOUT_MS)
    });
    const text = result.text.trim();
    if (!text) throw new Error("the model wrote an empty summary");
    return {
      text,
      model: modelId,
      truncated: result.finishReason === "length",
      usage: toTokenUsage(result.totalUsage)
    };
  };
}
