/**
 * "Mute mentions" in a room's menu: whether mentions of me in this room
 * notify me (my own setting, kept by the server per room). Read when the
 * menu opens; the item says what pressing it will do.
 */
import { Bell, BellOff } from "lucide-react";
import { useEffect, useState } from "react";
import { ActionMenuItem } from "@/client/components/ui/ActionMenu";
import { api } from "@/client/lib/api";

export function MuteMentionsItem({ roomId, close }: { roomId: string; close: () => void }) {
  const [muted, setMuted] = useState<boolean | null>(null);
  useEffect(() => {
    let current = true;
    api
      .roomNotifications(roomId)
      .then((r) => current && setMuted(r.muted))
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [roomId]);
  if (muted === null) return null;
  const label = muted ? "Unmute mentions" : "Mute mentions";
  return (
    <ActionMenuItem
      icon={muted ? <Bell /> : <BellOff />}
      label={label}
      onSelect={() => {
        close();
        void api.muteRoom(roomId, !muted).catch(() => {});
      }}
    >
      {label}
    </ActionMenuItem>
  );
}
