/**
 * Feeds an open room's reactions store (lib/reaction-store.ts) from the
 * room socket, in its order: the opening page's reactions, then the
 * greeting on connect and every change anyone makes. Called beside the
 * socket (components/RoomView.tsx), not in the transcript: that suspends
 * until the room's first page, and reactions sent meanwhile would reach
 * nobody.
 */
import { useEffect } from "react";
import { reactionStore, reactionsInFrame } from "@/client/lib/reaction-store";
import type { RoomSocket } from "./use-room-socket";

export function useReactionsFeed(roomId: string, socket: Pick<RoomSocket, "onFrame" | "onOpenedPage">) {
  const { onFrame, onOpenedPage } = socket;
  useEffect(() => {
    const stopPages = onOpenedPage((page) => reactionStore(roomId).opened(page));
    const stopFrames = onFrame((data) => {
      const reactions = reactionsInFrame(data);
      if (reactions) reactionStore(roomId).live(reactions);
    });
    return () => {
      stopPages();
      stopFrames();
    };
  }, [roomId, onFrame, onOpenedPage]);
}
