/**
 * The overseer's end of a room's batched broadcasts
 * (agents/room/broadcast-batch.ts, domain/sockets/frame-batch.ts). A batch arrives
 * as one `_cf_broadcastToSubAgent` call instead of one per frame; each of its
 * frames is delivered by the framework's own per-frame path, in order, with
 * its own exclusions, so a socket sees exactly the frames, in the order, it
 * would have seen one call at a time.
 */
import type { AgentPathStep } from "agents";
import { isFrameBatch, type RelayedFrame, type RelayedFrameMessage } from "@/server/domain/sockets/frame-batch";

type Deliver = (
  ownerPath: ReadonlyArray<AgentPathStep>,
  message: RelayedFrameMessage,
  without?: string[]
) => Promise<void>;

/**
 * Delivers a facet's broadcast: a plain frame as is, a batch frame by frame.
 * `deliver` is the framework's `_cf_broadcastToSubAgent`.
 */
export async function deliverBroadcast(
  ownerPath: ReadonlyArray<AgentPathStep>,
  message: unknown,
  without: string[] | undefined,
  deliver: Deliver
): Promise<void> {
  if (!isFrameBatch(message)) return deliver(ownerPath, message as RelayedFrameMessage, without);
  for (const frame of message.frames) await deliver(ownerPath, frame.message, frame.without);
}

/** A facet's broadcast as its frames, in order: one for a plain frame, each of a batch's. */
export function framesOf(message: unknown, without: string[] | undefined): readonly RelayedFrame[] {
  return isFrameBatch(message) ? message.frames : [{ message: message as RelayedFrameMessage, without }];
}
