/**
 * A message's "Pin to memory": its text becomes a pin that every later
 * answer in the room sees (the message stays where it is). Says when it is
 * done, and why not when it could not be.
 */
import { Check, Pin } from "lucide-react";
import { useState } from "react";
import { useRoomId } from "@/client/components/room/room-route";
import { IconButton } from "@/client/components/ui/Button";
import { api, errorMessage } from "@/client/lib/api";

export function PinMessageButton({ messageId }: { messageId: string }) {
  const roomId = useRoomId();
  const [state, setState] = useState<{ kind: "idle" | "busy" | "done" } | { kind: "error"; message: string }>({
    kind: "idle"
  });
  const pin = async () => {
    setState({ kind: "busy" });
    try {
      await api.addPin(roomId, { messageId });
      setState({ kind: "done" });
    } catch (e) {
      setState({ kind: "error", message: errorMessage(e) });
    }
  };
  return (
    <>
      <IconButton
        size="sm"
        label={state.kind === "done" ? "Pinned to memory" : "Pin to memory"}
        disabled={state.kind === "busy"}
        onClick={pin}
      >
        {state.kind === "done" ? <Check /> : <Pin />}
      </IconButton>
      {state.kind === "error" && (
        <span role="alert" className="ml-1 text-xs text-danger-strong">
          {state.message}
        </span>
      )}
    </>
  );
}
