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
  createUIMessageStreamResponse,
  type GenerateTextOnFinishCallback,
  isStepCount,
  type Tool,
  type ToolSet,
  type UIMessage
} from "ai";
import { toTokenUsage } from "@/server/domain/budgets/token-usage";
import {
  type AttachmentSource,
  attachmentsForModel,
  citeSources,
  type RetrievedPassage
} from "@/server/domain/files/file-context";
import type { AssembledContext, ContextSection } from "@/server/domain/memory/context-assembly";
import { type ProposePinResult, proposePinTool } from "@/server/domain/memory/memory-tools";
import { withReplyQuotes } from "@/server/domain/messages/reply-rules";
import { coalesceDeltas } from "@/server/domain/turns/coalesce-deltas";
import { describeModelError, modelErrorCode } from "@/server/domain/turns/model-errors";
import { createRoomTools, type HistorySearchHit, MAX_TOOL_STEPS } from "@/server/domain/turns/room-tools";
import { logModelError } from "@/server/log";
import { MODEL_MAX_RETRIES, type ModelConfig, resolveModel } from "@/server/model/provider";
import type { AnswerErrorCode } from "@/shared/errors";
import type { MessageMetadata, RoomSettings } from "@/shared/protocol";
import type { TurnInput } from "./room-personas";
import { searchFiles, turnPassages } from "./turn-passages";
import type { TurnTrace } from "./turn-trace";

// Deployed, model and tool calls become native Workers spans (Workers
// Observability); locally and per room, RoomTracer's store is what we show.
const { streamText } = wrapAISDK(ai);

/** What a turn needs of the room's memory (room/room-memory.ts). */
interface TurnMemory {
  assemble(request: {
    systemPrompt: string;
    history: readonly UIMessage[];
    tools?: ReadonlyArray<{ name: string; tokens: number }>;
    extra?: readonly ContextSection[];
  }): AssembledContext;
  /** Records what went in (and may start a summary in the background; never awaited). */
  saw(traceId: string, speaker: string, context: AssembledContext): void;
  proposePin(text: string): ProposePinResult;
}

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
  /** The room's MCP tools, with their policies and approvals (room/mcp-tools.ts). */
  mcpTools: () => Promise<ToolSet>;
  onFinish: GenerateTextOnFinishCallback<ToolSet>;
  abortSignal: AbortSignal | undefined;
  /** The turn failed with this code; the room records it when the turn ends (room/turn-end.ts). */
  failed: (code: AnswerErrorCode) => void;
  memory: TurnMemory;
  /** The room's files (room/room-files.ts): passages for the question, and those of files it carries. */
  files: {
    retrieve(question: string, limit: number, attached: readonly string[]): RetrievedPassage[];
    /** The id of this room's file a file part's url names, or null. */
    idOf(url: string): string | null;
    /** Whether any file of the room is indexed. */
    hasPassages(): boolean;
    /** How file parts reach the model (domain/files/file-context.ts). */
    attachments: AttachmentSource;
  };
  /** Resolves once what the room broadcast so far (the question, to everyone else) is delivered. */
  framesDelivered: () => Promise<void>;
}

/** A tool definition's estimated tokens: its name and description (input schemas are short). */
function toolTokens(name: string, description: string | undefined): number {
  return Math.ceil((name.length + (description ?? "").length) / 4) + 20;
}

export async function answerAsAssistant(a: AssistantTurn): Promise<Response> {
  const { config, settings, turn, panel, version, trace } = a;
  const versionMetadata = version?.metadata as MessageMetadata | undefined;
  const { model, modelId, offline } = resolveModel(config, settings, {
    roomName: settings.name,
    messageCount: a.messageCount,
    systemPrompt: settings.systemPrompt || null
  });
  const tools: ToolSet | undefined = panel
    ? undefined
    : {
        ...(await a.mcpTools()),
        ...createRoomTools({
          now: () => new Date(),
          searchHistory: a.searchHistory,
          // Offered only where there is something to search: a room without documents pays no tokens for it.
          ...(a.files.hasPassages() ? { searchFiles: async (query, limit) => searchFiles(a.files, query, limit) } : {})
        }),
        propose_pin: proposePinTool((text) => a.memory.proposePin(text)),
        delegate: a.delegate()
      };
  // The system prompt, the room's memory (pins, summaries) and the window of
  // recent messages, within the context budget; a panel's synthesis reads
  // the panel's answers instead of the window (domain/memory/context-assembly.ts).
  // Passages of the room's files that the question finds (domain/files/file-context.ts).
  const { passages, extra } = panel
    ? { passages: [], extra: [] }
    : turnPassages(turn.messages, a.files, config.contextTokenBudget);
  const context = a.memory.assemble({
    systemPrompt: panel ? [settings.systemPrompt, panel.system].filter(Boolean).join("\n\n") : settings.systemPrompt,
    // A reply opens with a quote of what it replies to (domain/messages/reply-rules.ts).
    history: panel ? [] : withReplyQuotes(turn.messages),
    tools: tools
      ? Object.entries(tools).map(([name, t]) => ({
          name,
          tokens: toolTokens(name, typeof t.description === "string" ? t.description : undefined)
        }))
      : [],
    extra
  });
  a.memory.saw(trace.traceId, "assistant", context);
  const messages = panel
    ? [{ role: "user" as const, content: panel.prompt }]
    : await convertToModelMessages(await attachmentsForModel(context.messages, a.files.attachments));
  // The question's frames reach everyone before the model is asked: the answer's first frames would
  // otherwise queue behind them, and their delivery waits for this thread (domain/sockets/frame-batch.ts).
  await a.framesDelivered();

  const result = streamText({
    model: trace.traceModel(model, modelId, panel ? `synthesis ${modelId}` : undefined),
    system: context.system || undefined,
    messages,
    tools: tools ? trace.traceTools(tools) : undefined,
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
  const stream = result.toUIMessageStream({
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
  // Each passage the answer cites becomes a source-document part (a citation in the UI).
  return createUIMessageStreamResponse({
    stream: passages.length > 0 ? stream.pipeThrough(citeSources(passages)) : stream
  });
}
