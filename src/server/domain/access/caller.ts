/**
 * The caller of a request or socket, as the Worker verified it, and how it
 * travels to the agents.
 *
 * The Worker (http/identity.ts) strips every client-sent `x-rooms-*` and
 * `x-agents-*` header, resolves the identity, and sets CALLER_HEADER on the
 * request it forwards. Agents trust that header because only the Worker can
 * reach them (the agents are not bound to any public route of their own).
 * REST calls hand the caller to the overseer as an RPC argument instead.
 *
 * In a room:
 *   - `callerOf(connection)` is who opened that socket (stored on the
 *     connection's state at connect, so it survives hibernation);
 *   - REST methods receive the `Caller` as an argument.
 */
import type { Connection } from "agents";
import { Identity } from "@/shared/identity";
import { addressKey } from "./address-key";

export interface Caller {
  identity: Identity;
  /** `cf-connecting-ip`; "local" where there is none (dev, tests). */
  address: string;
  /**
   * Set only for a socket opened through a share link (routes/shares-routes.ts):
   * the share's id. Such a socket is a read-only viewer of that one room.
   */
  viewerOf?: string;
  /**
   * Set by the Worker when the server's configuration makes this caller an
   * admin of every workspace: ACCESS_TOKEN's holder, ADMINS, the Access
   * admin group (domain/roles/workspace-roles.ts).
   */
  admin?: true;
  /** A named API token's caller: the workspace the token belongs to (it acts nowhere else). */
  tokenWorkspace?: string;
}

/** Set by the Worker only; any client-sent copy is stripped first. */
export const CALLER_HEADER = "x-rooms-caller";
/**
 * Header prefixes no client may send through the Worker. `x-cf-agents-` is
 * the framework's own: it reads a socket's target from
 * `x-cf-agents-subagent-url` on accept, so a client-sent copy on a room-list
 * socket would reach a room past the `/sub/` gate (and create its facet).
 */
export const RESERVED_HEADER_PREFIXES = ["x-rooms-", "x-agents-", "x-cf-agents-"] as const;

export function encodeCaller(caller: Caller): string {
  // Header values must be ASCII: names may not be.
  return encodeURIComponent(JSON.stringify(caller));
}

export function decodeCaller(value: string | null | undefined): Caller | null {
  if (!value) return null;
  try {
    const raw = JSON.parse(decodeURIComponent(value)) as {
      identity?: unknown;
      address?: unknown;
      viewerOf?: unknown;
      admin?: unknown;
      tokenWorkspace?: unknown;
    };
    const identity = Identity.safeParse(raw.identity);
    if (!identity.success || typeof raw.address !== "string" || raw.address.length > 64) return null;
    if (raw.viewerOf !== undefined && (typeof raw.viewerOf !== "string" || raw.viewerOf.length > 64)) return null;
    if (raw.admin !== undefined && raw.admin !== true) return null;
    if (raw.tokenWorkspace !== undefined && (typeof raw.tokenWorkspace !== "string" || raw.tokenWorkspace.length > 64))
      return null;
    return {
      identity: identity.data,
      address: raw.address,
      ...(typeof raw.viewerOf === "string" ? { viewerOf: raw.viewerOf } : {}),
      ...(raw.admin === true ? { admin: true as const } : {}),
      ...(typeof raw.tokenWorkspace === "string" ? { tokenWorkspace: raw.tokenWorkspace } : {})
    };
  } catch {
    return null;
  }
}

/** The caller the Worker verified for this request (CALLER_HEADER), or null. */
export function callerFromRequest(request: Request): Caller | null {
  return decodeCaller(request.headers.get(CALLER_HEADER));
}

/** Whether a socket's upgrade came through a share link (checked before onConnect stores the caller). */
export function isViewerRequest(request: Request): boolean {
  return callerFromRequest(request)?.viewerOf !== undefined;
}

/** Whether this socket is a share link's read-only viewer. */
export function isViewer(connection: Connection): boolean {
  return callerOf(connection)?.viewerOf !== undefined;
}

/** Connection state keeps the caller under this key; other keys are free for the room's own use. */
type WithCaller = { caller?: Caller };

/** Call in onConnect: remembers who opened this socket. Keeps the rest of the connection's state. */
export function rememberCaller(connection: Connection, request: Request): Caller | null {
  const caller = callerFromRequest(request);
  if (caller) {
    const current = (connection.state ?? {}) as Record<string, unknown>;
    connection.setState({ ...current, caller } as never);
  }
  return caller;
}

/**
 * Who opened this socket. A socket that reached a room without passing the
 * Worker has no caller; it is treated as nobody in particular, never as a
 * specific person.
 */
export function callerOf(connection: Connection): Caller | null {
  return ((connection.state ?? {}) as WithCaller).caller ?? null;
}

/** Rate-limit keys: reconnecting or opening more sockets never yields a fresh bucket. */
export function limitKeys(caller: Caller | null): { identity: string; address: string } {
  if (!caller) return { identity: "id:unknown", address: "ip:unknown" };
  const { identity } = caller;
  // An IPv6 client is limited by its /64 (domain/access/address-key.ts).
  const address = addressKey(caller.address);
  // Viewers of one link are told apart by address, like anonymous callers.
  if (caller.viewerOf !== undefined)
    return { identity: `id:viewer:${caller.viewerOf}@${address}`, address: `ip:${address}` };
  // Everyone anonymous shares the API identity: tell them apart by address.
  // (Named API tokens are identities of their own: `token:<id>`.)
  const id = identity.id === "api" ? `api@${address}` : identity.id;
  return { identity: `id:${id}`, address: `ip:${address}` };
}
