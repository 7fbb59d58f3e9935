/**
 * Picks the language model a room answers with. OpenAI or any
 * OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) through a
 * base URL; with neither a key nor a base URL, the built-in offline model, so
 * `npm start` works on a machine with no provider at all.
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel } from "ai";
import type { RoomSettings } from "../../shared/protocol";
import { createOfflineModel, OFFLINE_MODEL_ID, type OfflineRoomFacts } from "./offline-model";
import { createStreamGuardFetch } from "./stream-guard-fetch";

const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
const DEFAULT_CONTEXT_TOKEN_BUDGET = 8_000;
const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 60_000;
/** Retries of 429 and 5xx answers, with the AI SDK's exponential backoff. */
export const MODEL_MAX_RETRIES = 2;

export interface ModelConfig {
  apiKey: string | null;
  baseURL: string | null;
  defaultModel: string;
  contextTokenBudget: number;
  idleTimeoutMs: number;
}

type ModelEnv = {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_MODEL?: string;
  CONTEXT_TOKEN_BUDGET?: string;
  MODEL_IDLE_TIMEOUT_MS?: string;
};

function positiveInt(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

export function readModelConfig(env: ModelEnv): ModelConfig {
  const apiKey = env.OPENAI_API_KEY?.trim() || null;
  const baseURL = env.OPENAI_BASE_URL?.trim().replace(/\/+$/, "") || null;
  return {
    apiKey,
    baseURL,
    defaultModel: env.OPENAI_MODEL?.trim() || DEFAULT_OPENAI_MODEL,
    contextTokenBudget: positiveInt(env.CONTEXT_TOKEN_BUDGET, DEFAULT_CONTEXT_TOKEN_BUDGET),
    idleTimeoutMs: positiveInt(env.MODEL_IDLE_TIMEOUT_MS, DEFAULT_MODEL_IDLE_TIMEOUT_MS)
  };
}

export function isOffline(config: ModelConfig): boolean {
  return config.apiKey === null && config.baseURL === null;
}

/** The model id a room with these settings answers with. */
export function activeModelId(config: ModelConfig, settings: Pick<RoomSettings, "model">): string {
  if (isOffline(config)) return OFFLINE_MODEL_ID;
  return settings.model ?? config.defaultModel;
}

export function resolveModel(
  config: ModelConfig,
  settings: Pick<RoomSettings, "model">,
  facts: OfflineRoomFacts
): { model: LanguageModel; modelId: string; offline: boolean } {
  if (isOffline(config)) {
    return { model: createOfflineModel(facts), modelId: OFFLINE_MODEL_ID, offline: true };
  }
  const provider = createOpenAI({
    // Local servers (Ollama, llama.cpp) ignore the key but the SDK wants one.
    apiKey: config.apiKey ?? "not-needed",
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    fetch: createStreamGuardFetch({ idleTimeoutMs: config.idleTimeoutMs })
  });
  const modelId = activeModelId(config, settings);
  // Chat Completions is what every OpenAI-compatible server speaks.
  return { model: provider.chat(modelId), modelId, offline: false };
}
