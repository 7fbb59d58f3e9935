/**
 * What a room says about itself: the live report that rides on each
 * activity report to the overseer (workspace status without waking rooms),
 * and the live agent tree (`GET /api/rooms/:id/agents`). Read from what the
 * room already holds (tracer, ledger, roster); a persona facet that never
 * ran is not woken, and never created, to describe it.
 */
import type { Connection } from "agents";
import { utcDay } from "@/server/domain/rooms/workspace-status";
import type { AgentNode, AgentTree, RoomLive } from "@/shared/introspection";
import type { TokenUsage } from "@/shared/protocol";
import type { RoomBudget } from "./budget";
import type { RoomPersonas } from "./room-personas";
import type { AgentWork, RoomTracer } from "./turn-trace";

/** What introspection reads from its room. */
interface IntrospectionHost {
  connections(): Iterable<Connection>;
  storageBytes(): number;
  roomId(): string;
  roomName(): string;
  messageCount(): number;
  totalUsage(): TokenUsage;
  usedToday(): number;
}

export class RoomIntrospection {
  /** Sockets whose onClose ran, until the framework stops listing them. */
  #closedSockets = new Set<string>();

  constructor(
    private readonly host: IntrospectionHost,
    private readonly tracer: RoomTracer,
    private readonly personas: RoomPersonas,
    private readonly budget: RoomBudget
  ) {}

  /** Call from onClose: the framework still lists a socket while its onClose runs. */
  closed(connection: Connection) {
    this.#closedSockets.add(connection.id);
  }

  /** What the room tells its overseer about itself with each activity report. */
  liveReport(): RoomLive {
    const { status, activity } = this.tracer.live();
    let sockets = 0;
    const listed = new Set<string>();
    for (const connection of this.host.connections()) {
      listed.add(connection.id);
      if (!this.#closedSockets.has(connection.id)) sockets++;
    }
    for (const id of this.#closedSockets) if (!listed.has(id)) this.#closedSockets.delete(id);
    return {
      status,
      activity,
      sockets,
      storageBytes: this.host.storageBytes(),
      day: utcDay(),
      tokensToday: this.host.usedToday()
    };
  }

  /** The room's live agent tree: the room, each persona and each running task under it, and the budgets. */
  async describeAgents(): Promise<AgentTree> {
    const live = this.tracer.live();
    const personas = await Promise.all(this.personas.personas().map((p) => this.#personaNode(p.id, p.name)));
    return {
      room: {
        // The room's own id, so trees from several rooms can be told apart.
        id: this.host.roomId(),
        kind: "room",
        name: this.host.roomName(),
        status: live.status,
        activity: live.activity,
        storageBytes: this.host.storageBytes(),
        messages: this.host.messageCount(),
        tokens: { today: this.host.usedToday(), total: this.host.totalUsage() },
        lastActiveAt: this.tracer.lastActiveAt,
        traceId: live.traceId,
        children: [...personas, ...this.tracer.runningAgents("task").map(taskNode)]
      },
      budget: { room: this.budget.room(), workspace: await this.budget.workspace() }
    };
  }

  async #personaNode(id: string, name: string): Promise<AgentNode> {
    const running = this.tracer.agentActivity(id);
    const footprint = await this.personas.footprintIfRan(id);
    return {
      id,
      kind: "persona",
      name,
      status: running ? "streaming" : "idle",
      activity: running?.activity ?? null,
      storageBytes: null,
      messages: footprint?.answers ?? 0,
      tokens: footprint ? { today: 0, total: footprint.usage } : null,
      lastActiveAt: running?.startedAt ?? null,
      traceId: running?.traceId ?? null,
      children: []
    };
  }
}

/** A task running now, as the live tree shows it (its facet is not woken to describe it). */
function taskNode(work: AgentWork): AgentNode {
  return {
    id: work.agentId,
    kind: "task",
    name: work.name,
    status: "streaming",
    activity: work.activity,
    storageBytes: null,
    messages: null,
    tokens: null,
    lastActiveAt: work.startedAt,
    traceId: work.traceId,
    children: []
  };
}
