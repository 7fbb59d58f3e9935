/**
 * Feeds an open room's reactions store (lib/reaction-store.ts) from the
 * room socket: the greeting on connect and every change anyone makes.
 * Called beside the socket (components/RoomView.tsx), not in the
 * transcript: that suspends until the room's first page, and reactions
 * sent meanwhile would reach nobody.
 */
import { useEffect } from "react";
import { reactionStore, reactionsInFrame } from "@/client/lib/reaction-store";
import type { RoomSocket } from "./use-room-socket";

export function useReactionsFeed(roomId: string, socket: Pick<RoomSocket, "onFrame">) {
  const { onFrame } = socket;
  useEffect(
    () =>
      onFrame((data) => {
        const reactions = reactionsInFrame(data);
        if (reactions) reactionStore(roomId).merge(reactions);
      }),
    [roomId, onFrame]
  );
}
