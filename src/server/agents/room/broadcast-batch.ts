/**
 * A room facet's broadcasts reach its overseer in batches, not one RPC per
 * frame (the rules are in domain/sockets/frame-batch.ts; the overseer unpacks a
 * batch in agents/overseer/frame-batches.ts).
 *
 * Why by hand: in agents 0.32 a facet's `broadcast` goes
 * `DynamicAgentsInternal.broadcastToParent` → `routeBroadcast`, which waits
 * for the previous broadcast and every pending connection operation (the
 * "operation tail") and then makes one `_cf_broadcastToSubAgent` RPC to the
 * root. There is no option to batch, and no public hook between
 * `broadcast` and that RPC. So this patches two methods of the framework's
 * internal helper on this instance:
 * - `broadcastToParent` queues the frame in the batcher, which later hands
 *   one frame, or a batch of them, to the original `broadcastToParent`: the
 *   framework's own ordering (after older connection operations, after the
 *   previous broadcast) applies to every batch unchanged.
 * - `routeConnectionOperation` (a send to one socket, a close, a state
 *   change) first hands the queue over, so the operation is ordered after
 *   the frames written before it, as it would have been without batching
 *   (e.g. a resumed stream's replay after the frames broadcast before it).
 * If the framework's shape is not what this expects, nothing is patched and
 * broadcasts go one RPC each, as before.
 */
import { FrameBatcher, type RelayedFrameMessage } from "@/server/domain/sockets/frame-batch";

type Broadcast = (message: RelayedFrameMessage, without?: string[]) => Promise<void>;
type ConnectionOperation = (connectionId: string, name: string, operation: unknown) => void;

interface DynamicAgentsInternals {
  broadcastToParent?: Broadcast;
  routeConnectionOperation?: ConnectionOperation;
}

export function batchBroadcasts(agent: object): FrameBatcher | null {
  const internals = (agent as { _dynamicAgents?: DynamicAgentsInternals })._dynamicAgents;
  const broadcastToParent = internals?.broadcastToParent;
  const routeConnectionOperation = internals?.routeConnectionOperation;
  if (!internals || typeof broadcastToParent !== "function" || typeof routeConnectionOperation !== "function") {
    return null;
  }
  const batcher = new FrameBatcher((message, without) =>
    // A batch rides the framework's path as an opaque message; only our
    // overseer's `_cf_broadcastToSubAgent` reads it.
    broadcastToParent.call(internals, message as RelayedFrameMessage, without)
  );
  internals.broadcastToParent = async (message, without) => batcher.push(message, without);
  internals.routeConnectionOperation = (connectionId, name, operation) => {
    batcher.flush();
    routeConnectionOperation.call(internals, connectionId, name, operation);
  };
  return batcher;
}
