/**
 * Every frame a room facet broadcasts reaches its overseer, which picks the
 * sockets to send it to by asking, for every socket it holds, which facet
 * that socket targets. The framework (agents 0.32,
 * `DynamicAgentsInternal.connectionTargetPath`) answers by re-parsing the
 * socket's stored URL (`parseSubAgentPath` plus a `new URL`) each time: per
 * frame, per socket in the whole workspace. A socket's target never changes
 * once it is set, so this remembers it per socket object.
 *
 * The framework has no public hook for this; it patches one method of its
 * internal dynamic-agents helper and falls back to the framework's own
 * answer whenever the shape is not what it expects. Upstream, the same cache
 * belongs in `connectionTargetPath` (see BENCHMARKS.md).
 */
import type { Connection } from "agents";

type AgentPath = { className: string; name: string }[];
type DynamicAgentsInternals = { connectionTargetPath?: (connection: Connection) => AgentPath | null };

export function rememberSocketTargets(agent: object): boolean {
  const internals = (agent as { _dynamicAgents?: DynamicAgentsInternals })._dynamicAgents;
  const derive = internals?.connectionTargetPath;
  if (!internals || typeof derive !== "function") return false;
  const known = new WeakMap<object, AgentPath>();
  internals.connectionTargetPath = (connection: Connection) => {
    const remembered = known.get(connection);
    if (remembered) return remembered;
    const path = derive.call(internals, connection);
    // Only a set target is final: before the framework stores the socket's
    // URL the answer is null, and must be asked again.
    if (path) known.set(connection, path);
    return path;
  };
  return true;
}
