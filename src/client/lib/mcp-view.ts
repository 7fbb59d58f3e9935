/**
 * What the Tools dialog and the approval cards show, worked out apart from
 * React so it can be tested: a server's state in words, the add-server form's
 * few checks and the body it sends, and an "ask first" tool call read from
 * the stored tool part (its tool, its server's id, who decided).
 *
 * The form checks only what the server cannot tell (a header name without
 * its value); everything else is the server's to refuse, in its own words.
 */
import type { AddMcpServerBody, McpServerState, ToolPolicy } from "@/shared/tools";

export type StateTone = "busy" | "ok" | "error";

/** A server's connection state as the dialog says it. */
export function serverStateLabel(state: McpServerState): { label: string; tone: StateTone } {
  switch (state) {
    case "ready":
      return { label: "Ready", tone: "ok" };
    case "failed":
      return { label: "Failed", tone: "error" };
    case "authenticating":
      return { label: "Needs sign-in", tone: "busy" };
    case "connected":
    case "discovering":
      return { label: "Listing tools…", tone: "busy" };
    default:
      return { label: "Connecting…", tone: "busy" };
  }
}

/**
 * Whether the dialog should look again soon: a server is still on its way to
 * ready or failed. One waiting for a sign-in waits for a person, who comes
 * back to the room's page once signed in, so it is not looked at again.
 */
export const anySettling = (states: readonly McpServerState[]) =>
  states.some((state) => state !== "ready" && state !== "failed" && state !== "authenticating");

/** The host of a server's url (the listing's url has no credentials or query already). */
export function urlHost(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

export const toolCountLabel = (count: number) => (count === 1 ? "1 tool" : `${count} tools`);

/** The policies in the order the control offers them, with their words. */
export const POLICY_OPTIONS: ReadonlyArray<{ value: ToolPolicy; label: string; hint: string }> = [
  { value: "allowed", label: "Allowed", hint: "The assistant calls it without asking." },
  { value: "ask", label: "Ask first", hint: "A member approves each call." },
  { value: "off", label: "Off", hint: "Not offered to the assistant." }
];

/** The add-server form as typed: strings, untrimmed, kept as they are when the server refuses them. */
export interface AddServerDraft {
  name: string;
  url: string;
  headerName: string;
  headerValue: string;
}

export const EMPTY_SERVER_DRAFT: AddServerDraft = { name: "", url: "", headerName: "", headerValue: "" };

export interface AddServerErrors {
  name?: string;
  url?: string;
  header?: string;
}

/** What the form says before sending; the server says the rest (https only, private addresses, limits). */
export function validateServerDraft(draft: AddServerDraft): AddServerErrors {
  const errors: AddServerErrors = {};
  if (!draft.name.trim()) errors.name = "Give the server a name.";
  if (!draft.url.trim()) errors.url = "Give the server's address, e.g. https://mcp.example.com/mcp.";
  const hasName = draft.headerName.trim() !== "";
  const hasValue = draft.headerValue !== "";
  if (hasName && !hasValue) errors.header = "Give the header a value, or leave both empty.";
  if (!hasName && hasValue) errors.header = "Give the header a name (e.g. Authorization), or leave both empty.";
  return errors;
}

export const hasErrors = (errors: AddServerErrors) => Object.keys(errors).length > 0;

/** The POST body: headers only when one was given; the value goes as typed. */
export function addServerBody(draft: AddServerDraft): AddMcpServerBody {
  const headerName = draft.headerName.trim();
  return {
    name: draft.name.trim(),
    url: draft.url.trim(),
    ...(headerName && draft.headerValue ? { headers: { [headerName]: draft.headerValue } } : {})
  };
}

/**
 * An MCP tool's call name, `tool_<serverId>_<tool>` (server/mcp/
 * mcp-servers.ts: a server's id is "s", or "w" for the workspace's, and 8
 * hex digits), split; null for built-in tools.
 */
export function mcpCallParts(callName: string): { serverId: string; tool: string } | null {
  const match = /^tool_([sw][0-9a-f]{8})_(.+)$/.exec(callName);
  return match?.[1] && match[2] ? { serverId: match[1], tool: match[2] } : null;
}

/** A tool part's approval as the room stores it (room-approvals.ts adds who decided and when). */
export interface PartApproval {
  approved: boolean | undefined;
  reason: string | undefined;
  decidedBy: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads a part's `approval`, whatever an old or odd message holds there. */
export function partApproval(value: unknown): PartApproval | undefined {
  if (!isRecord(value)) return undefined;
  const by = isRecord(value.decidedBy) && typeof value.decidedBy.name === "string" ? value.decidedBy.name : undefined;
  return {
    approved: typeof value.approved === "boolean" ? value.approved : undefined,
    reason: typeof value.reason === "string" ? value.reason : undefined,
    decidedBy: by
  };
}

/** The line a decided call shows: who decided, or that nobody did in time. */
export function decisionLine(approval: PartApproval | undefined): string | null {
  if (!approval || approval.approved === undefined) return null;
  if (approval.reason) return approval.reason;
  if (approval.decidedBy) return `${approval.approved ? "Approved" : "Denied"} by ${approval.decidedBy}.`;
  return approval.approved ? "Approved." : "Denied.";
}

/** Arguments as the card shows them: indented JSON, cut short when huge. */
export function prettyArguments(input: unknown, max = 4_000): string {
  let text: string;
  try {
    text = typeof input === "string" ? input : (JSON.stringify(input ?? {}, null, 2) ?? "");
  } catch {
    text = String(input);
  }
  return text.length > max ? `${text.slice(0, max)}\n…` : text;
}
