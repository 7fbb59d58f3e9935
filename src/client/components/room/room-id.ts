/**
 * The id of the room a component is drawn in, from the room view around it
 * (RoomView.tsx), not from the route. The page keeps the last rooms left
 * mounted and hidden (lib/kept-rooms.ts): a hidden room's messages must still
 * name their own room, and a navigation elsewhere must not render every row
 * of every kept room again (the route's params change on each). Outside a
 * room (a share link's view) it is "", as the route's missing param was.
 */
import { createContext, useContext } from "react";

export const RoomIdContext = createContext("");

export function useRoomId(): string {
  return useContext(RoomIdContext);
}
