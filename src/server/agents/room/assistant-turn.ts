/**
 * The assistant's answer to a turn: the model call, and the stream the
 * framework persists and broadcasts. The room decides whether the turn runs
 * and who answers (chat-room.ts); this builds the call from the room's
 * settings: provider and model (model/provider.ts), the context window
 * (domain/turns/context-budget.ts), the room's tools and delegation, traced model
 * and tool spans (room/turn-trace.ts), and the metadata every answer starts
 * with.
 */
import { wrapAISDK } from "agents/observability/ai";
import * as ai from "ai";
import {
  convertToModelMessages,
  type GenerateTextOnFinishCallback,
  isStepCount,
  type Tool,
  type ToolSet,
  type UIMessage
} from "ai";
import { toTokenUsage } from "@/server/domain/budgets/token-usage";
import { coalesceDeltas } from "@/server/domain/turns/coalesce-deltas";
import { selectContextWindow } from "@/server/domain/turns/context-budget";
import { describeModelError, modelErrorCode } from "@/server/domain/turns/model-errors";
import { createRoomTools, type HistorySearchHit, MAX_TOOL_STEPS } from "@/server/domain/turns/room-tools";
import { logModelError } from "@/server/log";
import { MODEL_MAX_RETRIES, type ModelConfig, resolveModel } from "@/server/model/provider";
import type { AnswerErrorCode } from "@/shared/errors";
import type { MessageMetadata, RoomSettings } from "@/shared/protocol";
import type { TurnInput } from "./room-personas";
import type { TurnTrace } from "./turn-trace";

// Deployed, model and tool calls become native Workers spans (Workers
// Observability); locally and per room, RoomTracer's store is what we show.
const { streamText } = wrapAISDK(ai);

export interface AssistantTurn {
  config: ModelConfig;
  settings: RoomSettings;
  /** The room's message count (the offline model mentions it). */
  messageCount: number;
  turn: TurnInput;
  /** A panel's synthesis: the assistant sums up what the personas answered. */
  panel: { system: string; prompt: string } | null;
  /** A regeneration's empty version, which this answer fills in on its branch (room/branches.ts). */
  version: UIMessage | null;
  trace: TurnTrace;
  searchHistory: (query: string, limit: number) => Promise<HistorySearchHit[]>;
  /** The delegation tool (room/delegation.ts), made only when the turn gets tools. */
  delegate: () => Tool;
  onFinish: GenerateTextOnFinishCallback<ToolSet>;
  abortSignal: AbortSignal | undefined;
  /** The turn failed with this code; the room records it when the turn ends (room/turn-end.ts). */
  failed: (code: AnswerErrorCode) => void;
}

export async function answerAsAssistant(a: AssistantTurn): Promise<Response> {
  const { config, settings, turn, panel, version, trace } = a;
  const versionMetadata = version?.metadata as MessageMetadata | undefined;
  const { model, modelId, offline } = resolveModel(config, settings, {
    roomName: settings.name,
    messageCount: a.messageCount,
    systemPrompt: settings.systemPrompt || null
  });
  const window = selectContextWindow(turn.messages, {
    maxTokens: config.contextTokenBudget,
    systemPrompt: settings.systemPrompt
  });

  const result = streamText({
    model: trace.traceModel(model, modelId, panel ? `synthesis ${modelId}` : undefined),
    system: panel
      ? [settings.systemPrompt, panel.system].filter(Boolean).join("\n\n")
      : settings.systemPrompt || undefined,
    messages: panel ? [{ role: "user", content: panel.prompt }] : await convertToModelMessages(window.messages),
    tools: panel
      ? undefined
      : trace.traceTools({
          ...createRoomTools({ now: () => new Date(), searchHistory: a.searchHistory }),
          delegate: a.delegate()
        }),
    stopWhen: isStepCount(MAX_TOOL_STEPS),
    // One frame per ~16 ms per stream instead of one per token.
    experimental_transform: coalesceDeltas(),
    ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
    maxRetries: MODEL_MAX_RETRIES,
    abortSignal: a.abortSignal,
    onFinish: a.onFinish,
    // The SDK's default logs the whole error, prompt included.
    onError: logModelError
  });

  const startedAt = Date.now();
  return result.toUIMessageStreamResponse({
    ...(version ? { originalMessages: [] as UIMessage<MessageMetadata>[], generateMessageId: () => version.id } : {}),
    messageMetadata: ({ part }): MessageMetadata | undefined => {
      if (part.type === "start") {
        return {
          createdAt: startedAt,
          model: modelId,
          offline,
          traceId: trace.traceId,
          ...(turn.answering ? { answers: turn.answering } : {}),
          ...(panel ? { panel: "synthesis" as const } : {}),
          ...(versionMetadata?.versionOf
            ? { versionOf: versionMetadata.versionOf, version: versionMetadata.version }
            : {})
        };
      }
      if (part.type === "finish") return { usage: toTokenUsage(part.totalUsage) };
      return undefined;
    },
    onError: (error) => {
      a.failed(modelErrorCode(error));
      return describeModelError(error, config);
    }
  });
}
