/**
 * The overseer hands each frame a room broadcasts to that room's sockets
 * only, found by a tag naming the socket's exact target (domain/sockets/socket-tags.ts),
 * instead of the framework's walk over every socket of the workspace.
 *
 * Why by hand: in agents 0.32 the root delivers a facet's frame with
 * `DynamicAgentsInternal.broadcastToPath`, which iterates
 * `ctx.getWebSockets()` (every socket of the workspace, each one's
 * attachment deserialised) and compares each socket's target path: per
 * frame, the cost grows with the workspace's sockets, not the room's. The
 * platform indexes sockets by tag, and the root chooses a socket's tags when
 * it accepts it (`getConnectionTags`, whose request carries the framework's
 * sub-agent outer-URL header), but the framework has no hook to deliver by
 * them. So the overseer tags every socket it accepts with its target and,
 * per frame, asks the platform for that tag's sockets, still checking
 * `without` and that each one's target path is the frame's owner (so a
 * forged connection id, or a nested path, never receives another's frames).
 *
 * Every live socket carries its tag: a deploy closes all sockets, so none
 * accepted by older code survives one. So a tag that finds no socket means
 * the room has no viewer (a REST send, a room everyone left), and the frame
 * goes nowhere, without a scan of the workspace's sockets. Where the
 * framework's shape is not what this expects, or where no tag can name the
 * owner, the frame goes by the framework's own scan, which is never wrong,
 * only slower. Upstream, `broadcastToPath` could keep
 * a Map<pathKey, Set<Connection>> filled at accept (BENCHMARKS.md, "Known
 * limits and upstream costs", 1) and this module would go.
 */
import { type AgentPathStep, type Connection, parseSubAgentPath } from "agents";
import type { RelayedFrame } from "@/server/domain/sockets/frame-batch";
import {
  LIST_TAG,
  NOT_TO_VIEWERS,
  routeTag,
  stepsBelow,
  targetSteps,
  viewerTag
} from "@/server/domain/sockets/socket-tags";

/** Where the framework puts a sub-agent socket's outer URL on its accept request (agents 0.32, not exported). */
const OUTER_URL_HEADER = "x-cf-agents-subagent-url";

type Path = ReadonlyArray<AgentPathStep>;

/** The framework's own reading of a socket's target (patched to remember it: overseer/socket-targets.ts). */
interface TargetPaths {
  connectionTargetPath(connection: Connection): Path | null;
  isSameAgentPath(a: Path, b: Path): boolean;
}

interface RoutedAgent {
  readonly selfPath: Path;
}

function targetPaths(agent: object): TargetPaths | null {
  const paths = (agent as { _dynamicAgents?: Partial<TargetPaths> })._dynamicAgents;
  if (typeof paths?.connectionTargetPath !== "function" || typeof paths.isSameAgentPath !== "function") return null;
  return paths as TargetPaths;
}

export class SocketRoutes {
  readonly #agent: RoutedAgent;
  readonly #ctx: DurableObjectState;
  readonly #knownClasses: string[] | undefined;
  /** Null when the framework's shape is not what this expects: every frame goes by its scan. */
  readonly #paths: TargetPaths | null;
  /** The overseer's own path, read once it has a name. */
  #root: Path | undefined;

  constructor(agent: RoutedAgent, ctx: DurableObjectState) {
    this.#agent = agent;
    this.#ctx = ctx;
    const exported = (ctx as { exports?: object }).exports;
    this.#knownClasses = exported ? Object.keys(exported) : undefined;
    this.#paths = targetPaths(agent);
  }

  get active(): boolean {
    return this.#paths !== null;
  }

  /**
   * The route tag of a socket being accepted: LIST_TAG for a socket to the
   * overseer itself, the target's tag for a room socket, null when none can
   * be built (that socket is then reached only by the framework's scan).
   */
  tagFor(request: Request): string | null {
    const outerUrl = request.headers.get(OUTER_URL_HEADER) ?? request.url;
    const steps = targetSteps(outerUrl, (url) => parseSubAgentPath(url, { knownClasses: this.#knownClasses }));
    if (!steps) return null;
    return steps.length === 0 ? LIST_TAG : routeTag(steps);
  }

  /**
   * Sends a room's frames (one broadcast, or a batch of them) to its own
   * sockets, in order, each frame skipping its own `without`. False when
   * they could not be routed by tag (see the header): the caller then uses
   * the framework's delivery, which reaches the same sockets. The sockets
   * are looked up once per call: nothing can open or close one between the
   * frames of a synchronous loop.
   */
  deliver(ownerPath: Path, frames: readonly RelayedFrame[]): boolean {
    const paths = this.#paths;
    if (!paths) return false;
    this.#root ??= this.#agent.selfPath;
    const steps = stepsBelow(this.#root, ownerPath);
    const tag = steps && routeTag(steps);
    if (!tag) return false;
    // The platform's sockets, not the framework's iterator, which
    // deserialises each socket's attachment per call: the target path (the
    // framework's own answer, remembered) wraps the socket, and its id then
    // reads the framework's attachment cache. Recipients are all read before
    // any is sent to, so a socket that cannot be read sends the frames down
    // the framework's path instead, and none gets one twice.
    const recipients: Array<{ connection: Connection; id: string }> = [];
    try {
      for (const socket of this.#ctx.getWebSockets(tag)) {
        if (socket.readyState !== WebSocket.OPEN) continue;
        const connection = socket as unknown as Connection;
        const target = paths.connectionTargetPath(connection);
        if (target && paths.isSameAgentPath(target, ownerPath)) recipients.push({ connection, id: connection.id });
      }
    } catch (error) {
      console.warn("[OverseerAgent] a socket could not be routed by tag; delivering by the framework:", error);
      return false;
    }
    // Viewer sockets are read only for a frame the room keeps from them (one
    // that names people; viewers get their own copy, agents/room/viewer-sockets.ts).
    let viewers: Set<string> | undefined;
    for (const { message, without } of frames) {
      const notToViewers = without?.includes(NOT_TO_VIEWERS) ?? false;
      if (notToViewers && !viewers) viewers = this.#viewerIds(tag);
      for (const { connection, id } of recipients) {
        if (without?.includes(id) || (notToViewers && viewers?.has(id))) continue;
        connection.send(message);
      }
    }
    return true;
  }

  /** The ids of a room's share-link viewer sockets (tagged at accept, overseer-core.ts). */
  #viewerIds(route: string): Set<string> {
    const ids = new Set<string>();
    for (const socket of this.#ctx.getWebSockets(viewerTag(route))) ids.add((socket as unknown as Connection).id);
    return ids;
  }
}
