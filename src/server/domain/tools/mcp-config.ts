/**
 * The room's MCP limits, read from the Worker's variables (src/server/env.ts,
 * docs/configuration.md). Pure: the variables in, the limits out.
 */
export interface McpConfig {
  /** `MCP_ALLOW_PRIVATE=true`: http: and private addresses allowed (development and tests). */
  allowPrivate: boolean;
  /** One tool call at most this long (`MCP_TOOL_TIMEOUT_MS`, default 30 s). */
  toolTimeoutMs: number;
  /** One HTTP response from a server at most this large (`MCP_MAX_RESPONSE_BYTES`, default 1 MB). */
  maxResponseBytes: number;
  /**
   * One tool result at most this large. Fixed below what a stored message
   * part may hold (64 KB, domain/messages/persisted-message.ts), so a
   * result is either kept whole with its call or refused with a reason.
   */
  maxResultBytes: number;
  /** An "ask first" call nobody decides within this is denied (`MCP_APPROVAL_TIMEOUT_MS`, default 10 min). */
  approvalTimeoutMs: number;
}

const MCP_MAX_RESULT_BYTES = 48 * 1024;

function positive(raw: string | undefined, fallback: number, max: number): number {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), max) : fallback;
}

export function readMcpConfig(vars: {
  MCP_ALLOW_PRIVATE?: string;
  MCP_TOOL_TIMEOUT_MS?: string;
  MCP_MAX_RESPONSE_BYTES?: string;
  MCP_APPROVAL_TIMEOUT_MS?: string;
}): McpConfig {
  return {
    allowPrivate: vars.MCP_ALLOW_PRIVATE === "true",
    toolTimeoutMs: positive(vars.MCP_TOOL_TIMEOUT_MS, 30_000, 10 * 60_000),
    maxResponseBytes: positive(vars.MCP_MAX_RESPONSE_BYTES, 1024 * 1024, 32 * 1024 * 1024),
    maxResultBytes: MCP_MAX_RESULT_BYTES,
    approvalTimeoutMs: positive(vars.MCP_APPROVAL_TIMEOUT_MS, 10 * 60_000, 7 * 24 * 3_600_000)
  };
}
