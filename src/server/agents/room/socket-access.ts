/**
 * Who a room's sockets belong to, and letting them go. Share-link viewers
 * (routes/shares-routes.ts opens them; room/frame-guard.ts refuses their
 * writes): a viewer's socket is the framework's readonly connection, so it
 * cannot write state even if some later code path lets a frame through;
 * the frame guard refuses every frame that would act, since readonly alone
 * only guards setState, not chat requests. People who lost access to the
 * room (overseer/room-lists.ts asks): their sockets close at once, saying why.
 */
import type { Connection, ConnectionContext } from "agents";
import { type Caller, callerOf, isViewerRequest } from "@/server/domain/access/caller";
import { SHARE_CLOSED_CODE } from "@/shared/shares";

/** Whether a socket was opened through a share link (the Worker wrote its caller as a viewer). */
export function isViewerSocket(ctx: ConnectionContext): boolean {
  return isViewerRequest(ctx.request);
}

/** Closes every socket opened with the link; answers how many. */
export function closeViewers(connections: Iterable<Connection>, shareId: string): number {
  let closed = 0;
  for (const connection of connections) {
    if (callerOf(connection)?.viewerOf !== shareId) continue;
    connection.close(SHARE_CLOSED_CODE, "This share link is no longer valid.");
    closed++;
  }
  return closed;
}

/** Who has a socket open now, once per identity (viewers aside). */
export function connectedCallers(connections: Iterable<Connection>): Caller[] {
  const callers = new Map<string, Caller>();
  for (const connection of connections) {
    const caller = callerOf(connection);
    if (caller && caller.viewerOf === undefined) callers.set(caller.identity.id, caller);
  }
  return [...callers.values()];
}

/** Closes every socket of these identities (viewers aside), saying why; answers how many. */
export function closeSocketsOf(
  connections: Iterable<Connection>,
  identityIds: string[],
  code: number,
  reason: string
): number {
  const ids = new Set(identityIds);
  let closed = 0;
  for (const connection of connections) {
    const caller = callerOf(connection);
    if (!caller || caller.viewerOf !== undefined || !ids.has(caller.identity.id)) continue;
    connection.close(code, reason);
    closed++;
  }
  return closed;
}
