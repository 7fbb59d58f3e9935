/**
 * What the Worker hands the agents router for `/agents/*`: only the
 * overseer, only valid workspace names (sockets are checked like REST), the
 * caller's verified identity in CALLER_HEADER, no client-sent `x-rooms-*` /
 * `x-agents-*` headers, and a connection id the server chose. PartySocket
 * sends its own `_pk`, which the framework would take as the connection id,
 * letting a client pick someone else's id and displace their presence or
 * reset its own limits; so every request gets a fresh one.
 */

import { AppError } from "@/server/app-error";
import { CALLER_HEADER, type Caller, encodeCaller } from "@/server/domain/access/caller";
import { afterSignInPath, type OAuthOutcome } from "@/server/domain/tools/mcp-oauth";
import { WORKSPACE_PATTERN } from "@/shared/constants";
import { withoutReservedHeaders } from "./access";

const OVERSEER_SEGMENT = "overseer-agent";

function checkAgentPath(pathname: string): void {
  const [, prefix, binding, workspace] = pathname.split("/");
  if (prefix !== "agents" || binding !== OVERSEER_SEGMENT || workspace === undefined) {
    throw new AppError("not_found:route", 404, "No agent at this address.");
  }
  let name: string;
  try {
    name = decodeURIComponent(workspace);
  } catch {
    name = workspace;
  }
  if (!WORKSPACE_PATTERN.test(name)) {
    throw new AppError("bad_request:workspace", 400, "workspace must be 1-64 lowercase letters, digits, _ or -.");
  }
}

export function forwardToAgents(request: Request, caller: Caller): Request {
  const url = new URL(request.url);
  checkAgentPath(url.pathname);
  url.searchParams.set("_pk", crypto.randomUUID());
  const headers = withoutReservedHeaders(request.headers);
  headers.set(CALLER_HEADER, encodeCaller(caller));
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(url, {
    method: request.method,
    headers,
    body: hasBody ? request.body : null,
    redirect: "manual"
  });
}

/**
 * A room's OAuth callback (domain/tools/mcp-oauth.ts) as the agents router
 * gets it: no caller, whatever the request carried, because the provider's
 * redirect brings no session; the OAuth state is its credential, which the
 * room's MCP client checks. Only the query (code, state) is kept.
 */
export function forwardOAuthCallback(request: Request): Request {
  const url = new URL(request.url);
  url.searchParams.set("_pk", crypto.randomUUID());
  return new Request(url, { method: "GET", redirect: "manual" });
}

/**
 * The browser's way back to the room after its OAuth callback: the room
 * answers the outcome (agents/chat-room.ts says why not a redirect), and
 * this redirects to the room's page. Anything else the room or the gate
 * answered (a 404 for a state nobody issued) goes back as it is.
 */
export async function oauthCallbackRedirect(response: Response, roomId: string): Promise<Response> {
  if (response.status !== 200 || !response.headers.get("content-type")?.includes("application/json")) {
    return response;
  }
  const outcome = (await response.json()) as OAuthOutcome;
  return new Response(null, { status: 302, headers: { location: afterSignInPath(roomId, outcome) } });
}
