/**
 * The Worker's bindings and variables. Secrets come from `.dev.vars` locally
 * and `wrangler secret put` when deployed; none of them reaches the browser.
 */
import type { OverseerAgent } from "./agents/overseer-agent";

export interface Env {
  OverseerAgent: DurableObjectNamespace<OverseerAgent>;
  ASSETS?: Fetcher;
  /** OpenAI or any OpenAI-compatible server. Neither set: the offline model. */
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_MODEL?: string;
  /** Tokens of history (after the system prompt) sent with each request. */
  CONTEXT_TOKEN_BUDGET?: string;
  /** Give up on a provider that sends nothing for this long (ms). */
  MODEL_IDLE_TIMEOUT_MS?: string;
  /** When set, every /api and /agents request must present it. */
  ACCESS_TOKEN?: string;
  /** Comma-separated origins allowed to open WebSockets, besides our own. */
  ALLOWED_ORIGINS?: string;
  /** Multiplies the REST rate limits; 0 turns them off (load tests). */
  RATE_LIMIT_SCALE?: string;
}
