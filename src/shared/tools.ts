/**
 * MCP servers in a room and approvals of the assistant's tool calls: wire
 * types and zod schemas for REST and the room's approval cards. Runtime-safe
 * for the browser bundle.
 *
 * A server's headers (its credentials) go in with `AddMcpServerBody` and
 * never come back out: a server's view names its headers, never their values.
 */
import { z } from "zod";
import type { MessageAuthor } from "./identity";

/** A room holds at most this many MCP servers of its own. */
export const MAX_MCP_SERVERS_PER_ROOM = 8;
/** A workspace holds at most this many MCP servers, which every room of it offers besides its own. */
export const MAX_MCP_SERVERS_PER_WORKSPACE = 8;
const MAX_HEADERS = 16;

/**
 * What the assistant may do with a tool: `off` (not offered), `allowed`
 * (called without asking), `ask` (a person in the room approves each call
 * first). A tool the server declares read-only (`readOnlyHint`) starts
 * `allowed`, every other `ask`.
 */
const TOOL_POLICIES = ["off", "allowed", "ask"] as const;
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

/** Header names as HTTP allows them (RFC 9110 token). */
const HeaderName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "header names are HTTP tokens (1-100 characters)");
const HeaderValue = z
  .string()
  .max(4_000, "a header value has at most 4000 characters")
  .regex(/^[^\r\n\0]*$/, "a header value has no line breaks");

export const AddMcpServerBody = z.strictObject({
  name: z
    .string({ error: "name must be a string" })
    .trim()
    .min(1, "name must not be empty")
    .max(40, "name must be at most 40 characters"),
  url: z.string({ error: "url must be a string" }).trim().min(1, "url must not be empty").max(2_000),
  headers: z
    .record(HeaderName, HeaderValue)
    .refine((h) => Object.keys(h).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`)
    .optional()
});
export type AddMcpServerBody = z.infer<typeof AddMcpServerBody>;

export const UpdateMcpToolBody = z
  .strictObject({
    policy: z.enum(TOOL_POLICIES, { error: `policy is one of ${TOOL_POLICIES.join(", ")}` }).optional(),
    /** Whether the room's personas get the tool too (never with `ask`: a persona's answer cannot wait). */
    personas: z.boolean({ error: "personas must be true or false" }).optional()
  })
  .refine((b) => b.policy !== undefined || b.personas !== undefined, "send policy, personas or both");
export type UpdateMcpToolBody = z.infer<typeof UpdateMcpToolBody>;

export const ApprovalDecisionBody = z.strictObject({
  approved: z.boolean({ error: "approved must be true or false" })
});
export type ApprovalDecisionBody = z.infer<typeof ApprovalDecisionBody>;

/** The connection states the SDK reports (agents/mcp/client), as the room shows them. */
export type McpServerState = "connecting" | "authenticating" | "connected" | "discovering" | "ready" | "failed";

export interface McpToolView {
  name: string;
  description: string;
  /** The server declares it does not change anything (`readOnlyHint`). */
  readOnly: boolean;
  policy: ToolPolicy;
  personas: boolean;
}

export interface McpServerView {
  id: string;
  name: string;
  /** The server's address without credentials or query (those may hold secrets). */
  url: string;
  state: McpServerState;
  error: string | null;
  /**
   * While the server waits for someone to sign in (`authenticating`): the
   * provider's sign-in page to open. The tokens it leads to stay in the room.
   */
  authUrl: string | null;
  /** The names of the headers sent with each request; their values never leave the server. */
  headerNames: string[];
  tools: McpToolView[];
  addedBy: MessageAuthor;
  addedAt: number;
}

export interface McpServerList {
  servers: McpServerView[];
}

/** A tool call waiting for a person's decision, or decided. */
export interface ToolApproval {
  toolCallId: string;
  /** The tool's name as the server calls it, and the server's name in the room. */
  tool: string;
  server: string;
  input: unknown;
  /** Who asked the question the call answers. */
  askedBy: MessageAuthor | null;
  messageId: string;
  requestedAt: number;
  /** After this, nobody decided and the call was denied. */
  expiresAt: number;
  decision: {
    approved: boolean;
    /** Null when nobody decided in time. */
    by: MessageAuthor | null;
    at: number;
  } | null;
}

export interface ToolApprovalList {
  approvals: ToolApproval[];
}
