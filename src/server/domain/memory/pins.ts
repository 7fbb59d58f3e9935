/**
 * Pins: what a room's members keep in every context ("We chose Postgres").
 * A pin is a short note, or a message's text taken when it was pinned (the
 * message stays in history; the pin says which one it came from). Pure.
 */
import type { UIMessage } from "ai";
import { MAX_PIN_LENGTH } from "@/shared/memory";

/** The text a pinned message gives its pin, cut to a pin's length (and marked so); null when it has none. */
export function pinTextOf(message: Pick<UIMessage, "parts">): { text: string; truncated: boolean } | null {
  const text = message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("\n")
    .trim();
  if (!text) return null;
  if (text.length <= MAX_PIN_LENGTH) return { text, truncated: false };
  return { text: `${text.slice(0, MAX_PIN_LENGTH - 1)}…`, truncated: true };
}
