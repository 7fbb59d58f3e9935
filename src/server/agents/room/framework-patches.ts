/**
 * Where a room changes how agents 0.32 works inside a facet, each for the
 * cost it removes from every frame or turn; the reason and the mechanism of
 * each are in its own file. Each one checks the framework's shape first and
 * patches nothing when it is not what it expects: the room then works as
 * the framework does, only slower, and says so in the log.
 */
import type { FrameBatcher } from "@/server/domain/sockets/frame-batch";
import { batchBroadcasts } from "./broadcast-batch";
import { deferRunIndex } from "./deferred-run-index";
import { skipUnchangedFlags } from "./unchanged-flags";

export function patchFramework(room: object): { broadcasts: FrameBatcher | null } {
  // Broadcasts reach the overseer in batches, not one RPC per frame.
  const broadcasts = batchBroadcasts(room);
  if (!broadcasts) console.warn("[ChatRoom] broadcasts go to the overseer one RPC per frame");
  // A turn is listed with the overseer for recovery only once it runs long.
  if (!deferRunIndex(room)) console.warn("[ChatRoom] every turn waits for its listing with the overseer");
  // A frame does not rewrite its socket's unchanged tags at the overseer.
  if (!skipUnchangedFlags(room)) console.warn("[ChatRoom] every frame rewrites its socket's flags");
  return { broadcasts };
}
