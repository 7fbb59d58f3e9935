/**
 * Which persona names a room refuses: names that read as the assistant or
 * the model's own roles, and names that look like a persona already in the
 * room. Persona turns are labelled by name in other personas' prompts
 * (persona-context.ts), so "Аda" (a Cyrillic А) beside "Ada", or a persona
 * called "Assistant", could pass for someone it is not. "Looks like" is the
 * confusable skeleton of shared/names.ts (Unicode TR39, abridged).
 */
import { nameSkeleton } from "@/shared/names";

/** Names no persona may take (compared by skeleton): the assistant and the model's roles. */
const RESERVED = ["assistant", "system", "user", "tool", "model"];

const RESERVED_SKELETONS = new Set(RESERVED.map(nameSkeleton));

export function isReservedName(name: string): boolean {
  return RESERVED_SKELETONS.has(nameSkeleton(name));
}
