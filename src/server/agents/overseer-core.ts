/**
 * The overseer's framework half: its jobs made and wired
 * (overseer/workspace-jobs.ts), its sockets (the room list, and each room
 * socket's frames delivered by tag), the gate in front of every room, and
 * the alarms it sets. OverseerAgent (overseer-agent.ts) extends it with the
 * RPC surface the REST routes and rooms call; the two halves are one
 * Durable Object, split so each can be read in one sitting.
 */
import { Agent, type AgentPathStep, type Connection, type ConnectionContext, type WSMessage } from "agents";
import { identityLimits } from "@/server/agents/identity-limit-client";
import { deliverBroadcast, framesOf } from "@/server/agents/overseer/frame-batches";
import { readerTag } from "@/server/agents/overseer/read-marks";
import { SocketRoutes } from "@/server/agents/overseer/socket-routes";
import { rememberSocketTargets } from "@/server/agents/overseer/socket-targets";
import { type WorkspaceJobs, workspaceJobs } from "@/server/agents/overseer/workspace-jobs";
import { callerFromRequest, isViewerRequest, rememberCaller } from "@/server/domain/access/caller";
import { LIST_TAG, viewerTag } from "@/server/domain/sockets/socket-tags";
import type { Env } from "@/server/env";
import type { OverseerFrame } from "@/shared/protocol";
import { ChatRoom } from "./chat-room";

export abstract class OverseerCore extends Agent<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    if (!rememberSocketTargets(this)) console.warn("[OverseerAgent] socket targets are re-derived per frame");
    this.#routes = new SocketRoutes(this, ctx);
    if (!this.#routes.active) console.warn("[OverseerAgent] room frames are routed by a scan of every socket");
    this.jobs = workspaceJobs({
      ctx,
      env,
      facet: (id) => this.dynamicAgents.get(ChatRoom, id),
      spawned: (id) => this.dynamicAgents.has(ChatRoom, id),
      deleteFacet: (id) => this.dynamicAgents.delete(ChatRoom, id),
      scheduleShareExpiry: (at, payload) => this.schedule(at, "expireShare", payload),
      workspace: () => this.name,
      retryFilePurges: () => void this.schedule(60, "runFilePurges"),
      sweepOpenWritesIn: (seconds) => void this.schedule(seconds, "sweepOpenWrites"),
      connections: (tag) => this.getConnections(tag),
      identityLimits: identityLimits(env),
      mcp: () => this.mcp
    });
  }

  /** Each socket's tag naming its target, and room frames delivered by it (overseer/socket-routes.ts). */
  #routes: SocketRoutes;
  /** Every job of the workspace, wired to the others (overseer/workspace-jobs.ts). */
  protected readonly jobs: WorkspaceJobs;

  // ── Sockets ──

  /**
   * A room's broadcasts: one frame, or a batch of them in one call
   * (agents/room/broadcast-batch.ts), each sent to that room's sockets by
   * their tag (overseer/socket-routes.ts), or else by the framework.
   */
  async _cf_broadcastToSubAgent(
    ownerPath: ReadonlyArray<AgentPathStep>,
    message: string | ArrayBuffer | ArrayBufferView,
    without?: string[]
  ): Promise<void> {
    await this.__unsafe_ensureInitialized();
    if (this.#routes.deliver(ownerPath, framesOf(message, without))) return;
    await deliverBroadcast(ownerPath, message, without, (path, frame, except) =>
      super._cf_broadcastToSubAgent(path, frame, except)
    );
  }

  /**
   * The room-list socket only receives: clients may not write the
   * overseer's state (which the framework would store and push to every
   * list client), so every list connection is read-only.
   */
  shouldConnectionBeReadonly(): boolean {
    return true;
  }

  /**
   * The list client reads only our room frames; the framework's identity,
   * state and MCP frames would be noise (and leak the instance name).
   */
  shouldSendProtocolMessages(): boolean {
    return false;
  }

  validateStateChange(_next: unknown, source: Connection | "server") {
    if (source !== "server") throw new Error("The overseer's state is read-only for clients.");
  }

  /**
   * Every socket is tagged with its target (overseer/socket-routes.ts): a
   * room's frames go to its own sockets, the list's to list sockets. A list
   * socket is also tagged with its identity, so read marks go to that
   * person's sockets only.
   */
  getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    const route = this.#routes.tagFor(ctx.request);
    if (!route) return [];
    // A viewer's socket is also marked as one, so frames naming people can be kept from it.
    if (route !== LIST_TAG) return isViewerRequest(ctx.request) ? [route, viewerTag(route)] : [route];
    const caller = callerFromRequest(ctx.request);
    return caller ? [LIST_TAG, readerTag(caller.identity.id)] : [LIST_TAG];
  }

  /** The rooms its caller may see, and how far they have read each (overseer/room-lists.ts). */
  onConnect(connection: Connection, ctx: ConnectionContext) {
    this.jobs.lists.greet(connection, rememberCaller(connection, ctx.request));
  }

  onMessage(connection: Connection, _message: WSMessage) {
    // The room list is read-only over the socket; changes go through REST.
    send(connection, {
      type: "error",
      code: "bad_request:body",
      message: "This socket only receives the room list; use the REST API to change rooms."
    });
  }

  /**
   * The gate in front of every room socket and room HTTP request. Runs
   * before the framework would lazily create a facet, so an unknown or
   * deleted id gets 404 (a WebSocket is closed with 4404).
   */
  async onBeforeSubAgent(request: Request, child: { className: string; name: string }) {
    return this.jobs.rooms.gate(request, child);
  }

  // ── Alarms ──

  /** The alarm createShare sets for an expiring link (overseer/share-links.ts). */
  async expireShare(payload: { roomId: string; shareId: string }) {
    await this.jobs.shares.expire(payload);
  }

  /** The alarm a failed purge of files' bytes set (overseer/workspace-files.ts). */
  async runFilePurges() {
    await this.jobs.files.runPurges();
  }

  /** The alarm for file writes no room recorded by their deadline (overseer/open-writes.ts). */
  async sweepOpenWrites(now = Date.now()) {
    this.jobs.files.openWrites.sweep(now);
  }
}

function send(connection: Connection, frame: OverseerFrame) {
  connection.send(JSON.stringify(frame));
}
