/**
 * The room list, requested as the page starts rather than after the sign-in
 * check and the overseer socket: imported first by main.tsx, so the request
 * leaves as the bundle starts. (Not a <link rel=preload>: that would hold
 * the page's load event on a cold server.) The live socket takes over as
 * soon as it sends its first frame.
 */
import type { RoomSummary } from "@/shared/protocol";

const ROOM_LIST_URL = "/api/rooms";

/** Settles with the list, or null when it could not be had (signed out, offline, a share link's viewer…). */
export const earlyRoomList: Promise<RoomSummary[] | null> = (
  window.location.pathname.startsWith("/share/") ? Promise.resolve(null) : fetch(ROOM_LIST_URL)
)
  .then(async (response) => {
    if (!response?.ok) return null;
    const body = (await response.json()) as { rooms?: unknown };
    return Array.isArray(body.rooms) ? (body.rooms as RoomSummary[]) : null;
  })
  .catch(() => null);
