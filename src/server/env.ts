/**
 * The Worker's bindings and variables. Secrets come from `.dev.vars` locally
 * and `wrangler secret put` when deployed; none of them reaches the browser.
 *
 * The Durable Object bindings are typed by their contracts (src/server/contracts/),
 * not by their classes: every module imports Env, and a class type here
 * would put every agent module in one import circle.
 */
import type { Agent } from "agents";
import type { AuthKeeperApi } from "./contracts/auth-keeper-api";
import type { LimitKeeperApi } from "./contracts/limit-keeper-api";
import type { OverseerRestApi, OverseerRoomApi, OverseerTokenApi } from "./contracts/overseer-api";

/** What the OverseerAgent binding holds: an agent (for `getAgentByName`) that keeps the overseer's contracts. */
type OverseerBinding = Agent<Env> & OverseerRestApi & OverseerRoomApi & OverseerTokenApi;

export interface Env {
  OverseerAgent: DurableObjectNamespace<OverseerBinding>;
  /** Session signing key (when SESSION_SECRET is unset) and wrong-token throttling. */
  AuthKeeper: DurableObjectNamespace<AuthKeeperApi & Rpc.DurableObjectBranded>;
  /** One per identity: its rate limits across every workspace (agents/limit-keeper.ts). */
  LimitKeeper: DurableObjectNamespace<LimitKeeperApi & Rpc.DurableObjectBranded>;
  ASSETS?: Fetcher;
  /** Files' bytes (docs/files.md); the Vite plugin gives a local bucket. */
  FILES: R2Bucket;
  /** "true"/"false": whether models read images, for rooms that do not say (default: only OpenAI's own API). */
  MODEL_ACCEPTS_IMAGES?: string;
  /** Largest file (bytes), default 25 MB; each room's and each workspace's file bytes. */
  FILES_MAX_BYTES?: string;
  FILES_ROOM_QUOTA_BYTES?: string;
  FILES_WORKSPACE_QUOTA_BYTES?: string;
  /** OpenAI or any OpenAI-compatible server. Neither set: the offline model. */
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_MODEL?: string;
  /** Tokens of history (after the system prompt) sent with each request. */
  CONTEXT_TOKEN_BUDGET?: string;
  /** Give up on a provider that sends nothing for this long (ms). */
  MODEL_IDLE_TIMEOUT_MS?: string;
  /** A persona answer running longer than this (ms) is stopped; default PERSONA_ANSWER_TIMEOUT_MS. */
  PERSONA_TIMEOUT_MS?: string;
  /** Per delegated task: model steps, tokens and wall time (ms); defaults and ranges in domain/facets/delegation-limits.ts. */
  TASK_MAX_STEPS?: string;
  TASK_MAX_TOKENS?: string;
  TASK_WALL_TIME_MS?: string;
  /** When set, signing in needs it, and scripts send it as `Authorization: Bearer`. */
  ACCESS_TOKEN?: string;
  /** Signs session cookies. Unset: a key generated once and kept by AuthKeeper. Changing it signs everyone out. */
  SESSION_SECRET?: string;
  /** Both set: the identity is the verified Cloudflare Access assertion. */
  CF_ACCESS_TEAM_DOMAIN?: string;
  CF_ACCESS_AUD?: string;
  /**
   * Comma-separated Access e-mails or identity ids of people who are admins
   * of every workspace (never display names). Set: nobody becomes an admin
   * by being a workspace's first person.
   */
  ADMINS?: string;
  /** Behind Access: members of this Access group (the assertion's `groups` claim) are admins. */
  ACCESS_ADMIN_GROUP?: string;
  /** Comma-separated origins allowed to open WebSockets and make REST changes (POST, PUT, PATCH, DELETE), besides our own. */
  ALLOWED_ORIGINS?: string;
  /** Multiplies the rate limits (per workspace, per room and per identity across workspaces); 0 turns them off (load tests). */
  RATE_LIMIT_SCALE?: string;
  /** Milliseconds a search across rooms waits for rooms before answering partially (default 3000). */
  SEARCH_DEADLINE_MS?: string;
  /** "true": MCP servers may be http: and on private, loopback or link-local addresses (development and tests only). */
  MCP_ALLOW_PRIVATE?: string;
  /** One MCP tool call at most this long (ms, default 30000). */
  MCP_TOOL_TIMEOUT_MS?: string;
  /** One response from an MCP server at most this large (bytes, default 1048576). */
  MCP_MAX_RESPONSE_BYTES?: string;
  /** An "ask first" tool call nobody decides within this is denied (ms, default 600000). */
  MCP_APPROVAL_TIMEOUT_MS?: string;
  /** Default daily token budget of a room that sets none (0 = unlimited). */
  ROOM_DAILY_TOKEN_BUDGET?: string;
  /** Default daily token budget of a workspace that sets none (0 = unlimited). */
  WORKSPACE_DAILY_TOKEN_BUDGET?: string;
}
