/**
 * What the signed-in person may do in one room (shared/permissions.ts), asked
 * of the server when a panel opens: the server decides, the panel only hides
 * or disables what would be refused, and says who can. Null while unknown
 * (panels then offer everything and the server's 403 says why).
 */
import { useEffect, useState } from "react";
import { api } from "@/client/lib/api";
import type { RoomAccess } from "@/shared/members";
import type { RoomAction } from "@/shared/permissions";

export function useRoomAccess(roomId: string, open = true): RoomAccess | null {
  const [access, setAccess] = useState<RoomAccess | null>(null);
  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    api.getRoom(roomId, controller.signal).then(
      (room) => setAccess(room.access ?? null),
      () => setAccess(null)
    );
    return () => controller.abort();
  }, [open, roomId]);
  return access;
}

/** Whether `access` allows `action`; true while unknown. */
export function allows(access: RoomAccess | null, action: RoomAction): boolean {
  return access === null || access.may.includes(action);
}
