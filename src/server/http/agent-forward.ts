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
