/**
 * Where an MCP server's OAuth provider sends the browser back to: a room's
 * own callback address, `/agents/overseer-agent/<ws>/sub/chat-room/<id>/mcp-callback`.
 * The agents SDK's MCP client does the OAuth itself (discovery, client
 * registration, PKCE, the code exchange, the tokens in the room's storage);
 * it needs this one address, passed when a room registers a server, and
 * the request routed to the same room.
 *
 * The callback carries no session: the provider's redirect is a cross-site
 * navigation, and the session cookie is SameSite=Strict, so the browser
 * does not send it. The OAuth `state` is the credential instead: the SDK
 * accepts only a state it issued, once. So the Worker and the overseer's
 * gate let exactly this path through without a caller, and the room answers
 * 404 to anything its MCP client does not claim.
 */

/** The last segment of a room's callback path (what the room sees once the overseer forwarded it). */
export const MCP_CALLBACK_SEGMENT = "mcp-callback";

const CALLBACK_PATH = new RegExp(`^/agents/overseer-agent/[^/]+/sub/chat-room/([^/]+)/${MCP_CALLBACK_SEGMENT}$`);

/** A room's OAuth callback URL on the app's origin. */
export function mcpCallbackUrl(origin: string, workspace: string, roomId: string): string {
  const path = `/agents/overseer-agent/${encodeURIComponent(workspace)}/sub/chat-room/${encodeURIComponent(roomId)}/${MCP_CALLBACK_SEGMENT}`;
  return new URL(path, origin).toString();
}

/** Whether a path is a room's OAuth callback (and nothing below or beside it). */
export function isMcpCallbackPath(pathname: string): boolean {
  return CALLBACK_PATH.test(pathname);
}

/**
 * Whether a request is a browser coming back from an OAuth provider: a plain
 * GET of a callback path. Never a WebSocket upgrade, which at this path
 * would otherwise open a socket to the room with no one's session.
 */
export function isMcpCallbackRequest(request: { method: string; headers: Headers; url: string }): boolean {
  return (
    request.method === "GET" && !request.headers.has("upgrade") && isMcpCallbackPath(new URL(request.url).pathname)
  );
}

/** The room id of a callback path, or null for any other path. */
export function roomIdOfCallbackPath(pathname: string): string | null {
  const encoded = pathname.match(CALLBACK_PATH)?.[1];
  if (!encoded) return null;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

/** What a room answers to its OAuth callback once its MCP client has handled it. */
export interface OAuthOutcome {
  signedIn: boolean;
  error: string | null;
}

/**
 * Where the browser goes after the callback: back to the room's page, with
 * `mcp_error` saying why when the sign-in failed.
 */
export function afterSignInPath(roomId: string, outcome: OAuthOutcome): string {
  const page = roomPagePath(roomId);
  if (outcome.signedIn) return page;
  return `${page}?${new URLSearchParams({ mcp_error: (outcome.error ?? "The sign-in failed.").slice(0, 300) })}`;
}

/**
 * The server id in an OAuth state the SDK issued (`<nonce>.<serverId>`,
 * agents/mcp/client `extractServerIdFromState`), or null.
 */
export function serverIdOfState(state: string | null): string | null {
  const parts = state?.split(".") ?? [];
  return parts.length === 2 && parts[0] && parts[1] ? parts[1] : null;
}

/** The room page a finished (or refused) sign-in returns the browser to. */
function roomPagePath(roomId: string): string {
  return `/sub/chat-room/${encodeURIComponent(roomId)}`;
}
