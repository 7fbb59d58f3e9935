/**
 * Names for rooms made from other rooms. An import keeps its name when no
 * room of the workspace has it, and is told apart when one does ("Trip
 * planning (imported)", then "(imported 2)"...): four rooms called "Trip
 * planning" in the list are four guesses. A fork always says so ("Design
 * (fork)", then "(fork 2)"...). Every name fits the name limit.
 */
import { MAX_ROOM_NAME_LENGTH } from "@/shared/constants";

type Kind = "imported" | "fork";

/** "X (imported 3)" → "X": a copy of a copy is named after the original. */
function baseName(name: string, kind: Kind): string {
  const base = name.replace(new RegExp(` \\(${kind}(?: \\d+)?\\)$`), "");
  return base.trim() || name;
}

function withSuffix(base: string, suffix: string): string {
  return base.slice(0, MAX_ROOM_NAME_LENGTH - suffix.length).trimEnd() + suffix;
}

/** A name no room in `taken` has, for a room imported or forked from one called `name`. */
export function distinctRoomName(name: string, kind: Kind, taken: ReadonlySet<string>): string {
  if (kind === "imported" && !taken.has(name)) return name;
  const base = baseName(name, kind);
  for (let n = 1; ; n++) {
    const candidate = withSuffix(base, n === 1 ? ` (${kind})` : ` (${kind} ${n})`);
    if (!taken.has(candidate)) return candidate;
  }
}
