/**
 * Auto mode, room side: a turn whose plan is `auto` (the room answers only
 * when it should, domain/turns/auto-reply.ts) becomes the assistant's turn
 * or nobody's. A message naming a person is theirs, with no model call;
 * otherwise one short call to the room's model decides (an offline room,
 * or an answer that cannot be read, goes by the rule of thumb). The
 * decision and its reason are a span of the turn's trace, named with both
 * ("auto: answer (a question to the room)"), and its tokens count against
 * the room's budgets like any other call.
 */
import { generateText, type UIMessage } from "ai";
import { toTokenUsage } from "@/server/domain/budgets/token-usage";
import { speakerOf } from "@/server/domain/personas/persona-context";
import {
  AUTO_DECISION_MAX_TOKENS,
  type AutoDecision,
  addressedToSomeone,
  decisionRequest,
  parseDecision,
  ruleOfThumb
} from "@/server/domain/turns/auto-reply";
import { MODEL_MAX_RETRIES, type ModelConfig, resolveModel } from "@/server/model/provider";
import type { RoomSettings, TokenUsage } from "@/shared/protocol";
import type { TurnTrace } from "./turn-trace";

/** A decision that has not come back in this long is taken by the rule of thumb. */
const DECISION_TIMEOUT_MS = 20_000;

interface AutoResponderHost {
  config(): ModelConfig;
  settings(): RoomSettings;
  /** Charges the decision's provider-reported tokens to the room's day. */
  charge(usage: TokenUsage): void;
}

const textOf = (message: UIMessage) =>
  message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("\n");

export class AutoResponder {
  constructor(private readonly host: AutoResponderHost) {}

  /** Whether the assistant answers `question` (the last of `messages`); the decision is traced. */
  async decide(
    messages: readonly UIMessage[],
    question: UIMessage,
    trace: Pick<TurnTrace, "recordStep">,
    signal?: AbortSignal
  ): Promise<AutoDecision> {
    const startedAt = Date.now();
    const text = textOf(question);
    const addressed = addressedToSomeone(text);
    if (addressed) {
      trace.recordStep(stepName(addressed), startedAt, { model: null, status: "ok" });
      return addressed;
    }
    const settings = this.host.settings();
    const { model, modelId, offline } = resolveModel(this.host.config(), settings, {
      roomName: settings.name,
      messageCount: 0,
      systemPrompt: null
    });
    if (offline) {
      const rule = ruleOfThumb(text);
      trace.recordStep(stepName(rule), startedAt, { model: null, status: "ok" });
      return rule;
    }
    const before = messages
      .filter((m) => m.id !== question.id)
      .map((m) => ({ speaker: speakerOf(m), text: textOf(m) }))
      .filter((line) => line.text.trim());
    const request = decisionRequest(before, { speaker: speakerOf(question), text });
    try {
      const result = await generateText({
        model,
        system: request.system,
        prompt: request.prompt,
        maxOutputTokens: AUTO_DECISION_MAX_TOKENS,
        maxRetries: MODEL_MAX_RETRIES,
        abortSignal: AbortSignal.any([AbortSignal.timeout(DECISION_TIMEOUT_MS), ...(signal ? [signal] : [])])
      });
      const usage = toTokenUsage(result.totalUsage);
      this.host.charge(usage);
      const read = parseDecision(result.text);
      const rule = ruleOfThumb(text);
      const decision = read ?? { ...rule, reason: `${rule.reason}; the model's answer was unreadable` };
      trace.recordStep(stepName(decision), startedAt, {
        model: modelId,
        status: "ok",
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens
      });
      return decision;
    } catch {
      const rule = ruleOfThumb(text);
      const decision = { ...rule, reason: `${rule.reason}; the decision call failed` };
      trace.recordStep(stepName(decision), startedAt, { model: modelId, status: "error", errorCode: "upstream:model" });
      return decision;
    }
  }
}

function stepName(decision: AutoDecision): string {
  return `auto: ${decision.answer ? "answer" : "stay quiet"} (${decision.reason})`;
}
