/**
 * The room a component is drawn in, and that room's own search params
 * (`?m=` a message to jump to, `?mcp_error=`), from the room view around it
 * (RoomView.tsx), not from the route. The page keeps the last rooms left
 * mounted and hidden (lib/kept-rooms.ts): a hidden room must still name
 * itself and keep its own params (a deep link into another room must not
 * turn a hidden room's transcript into a jump view), and a navigation
 * elsewhere must not render every row of every kept room again (the
 * route's params change on each). Outside a room (a share link's view) the
 * id is "" and there are no params, as the route had none.
 */
import { createContext, useContext } from "react";
import type { SetURLSearchParams } from "react-router";

export const RoomIdContext = createContext("");

export function useRoomId(): string {
  return useContext(RoomIdContext);
}

export interface RoomSearch {
  params: URLSearchParams;
  setParams: SetURLSearchParams;
}

export const RoomSearchContext = createContext<RoomSearch>({ params: new URLSearchParams(), setParams: () => {} });

/** Like react-router's useSearchParams, for the room this is drawn in. */
export function useRoomSearchParams(): [URLSearchParams, SetURLSearchParams] {
  const { params, setParams } = useContext(RoomSearchContext);
  return [params, setParams];
}
