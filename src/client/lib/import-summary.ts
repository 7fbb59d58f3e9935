/**
 * What the person importing is told: how many rooms were made and, when the
 * server had to shorten messages to fit (a ChatGPT turn longer than a
 * message may be), which ones and by how much. Without this an import that
 * cut a 3,000,000-character turn to 16,000 looked complete. Pure, so the
 * wording is tested beside the rest of the client's logic.
 */
import type { ImportResult } from "@/shared/transfer";
import { countOf } from "./time";

/** Shortened messages listed one by one; past this, a count of the rest. */
const MAX_LISTED = 5;

export interface ImportSummary {
  /** "Imported 2 rooms." */
  headline: string;
  /** One line per shortened message (at most MAX_LISTED, then "…and N more"); empty when nothing was cut. */
  shortened: string[];
}

export function importSummary(result: ImportResult): ImportSummary {
  const headline = `Imported ${countOf(result.rooms.length, "room")}.`;
  const cuts = result.rooms.flatMap((room) => (room.truncated ?? []).map((cut) => ({ room, cut })));
  const shortened = cuts.slice(0, MAX_LISTED).map(({ room, cut }) => {
    const who = cut.role === "user" ? "a person's message" : "an answer";
    return `“${room.name}”, message ${cut.position} (${who}): shortened from ${countOf(cut.originalLength, "character")} to ${cut.keptLength.toLocaleString()}.`;
  });
  if (cuts.length > MAX_LISTED) shortened.push(`…and ${countOf(cuts.length - MAX_LISTED, "more message")}.`);
  return { headline, shortened };
}
