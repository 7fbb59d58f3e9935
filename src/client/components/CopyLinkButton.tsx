/**
 * "Copy link": a room's address, for inviting people (anyone signed in to
 * this workspace can open it). Says "Link copied" for a moment, also to
 * screen readers (the button's name changes).
 */
import { Check, Link } from "lucide-react";
import { useEffect, useState } from "react";
import { roomPath } from "@/client/lib/routes";
import { copyText } from "./CopyButton";
import { IconButton } from "./ui/Button";

function roomLink(roomId: string): string {
  return new URL(roomPath(roomId), window.location.origin).href;
}

/** Copies a room's link; the label says "Link copied" (or that it failed) for two seconds. */
export function useCopyLink(roomId: string, roomName: string) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2_000);
    return () => clearTimeout(timer);
  }, [state]);
  const label =
    state === "copied" ? "Link copied" : state === "failed" ? "Could not copy the link" : `Copy link to ${roomName}`;
  const copy = () =>
    copyText(roomLink(roomId)).then(
      () => setState("copied"),
      () => setState("failed")
    );
  return { state, label, copy };
}

export function CopyLinkButton({
  roomId,
  roomName,
  className,
  tabIndex
}: {
  roomId: string;
  roomName: string;
  className?: string;
  tabIndex?: number;
}) {
  const { state, label, copy } = useCopyLink(roomId, roomName);
  return (
    <IconButton
      label={label}
      title={state === "idle" ? "Copy link" : label}
      className={className}
      tabIndex={tabIndex}
      onClick={(event) => {
        // Inside a room row (a link): copy, do not navigate.
        event.preventDefault();
        event.stopPropagation();
        void copy();
      }}
    >
      {state === "copied" ? <Check className="text-success" /> : <Link />}
    </IconButton>
  );
}
