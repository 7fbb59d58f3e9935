/**
 * Persona colours for the transcript. Messages carry only `{ id, name }`
 * of their persona; the colour comes from the room's live roster, so a
 * recoloured persona recolours its past answers too.
 */
import { Bot } from "lucide-react";
import { createContext, type ReactNode, useContext, useMemo } from "react";
import type { Persona, PersonaRef } from "@/shared/personas";

const PersonaColours = createContext<ReadonlyMap<string, string>>(new Map());

export function PersonaColoursProvider({
  personas,
  children
}: {
  personas: Persona[] | undefined;
  children: ReactNode;
}) {
  const colours = useMemo(() => new Map((personas ?? []).map((p) => [p.id, p.colour])), [personas]);
  return <PersonaColours.Provider value={colours}>{children}</PersonaColours.Provider>;
}

/** A deleted persona's old answers keep a neutral grey. */
function usePersonaColour(persona: PersonaRef | undefined): string {
  const colours = useContext(PersonaColours);
  return (persona && colours.get(persona.id)) || "#71717a";
}

export function PersonaAvatar({ persona }: { persona: PersonaRef }) {
  const colour = usePersonaColour(persona);
  return (
    <span
      aria-hidden="true"
      className="inline-flex size-8 shrink-0 items-center justify-center rounded-full text-on-fill shadow-sm"
      style={{ backgroundColor: colour }}
    >
      <Bot className="size-4" />
    </span>
  );
}

export function PersonaName({ persona }: { persona: PersonaRef }) {
  const colour = usePersonaColour(persona);
  return (
    <span className="truncate text-sm font-semibold" style={{ color: colour }} data-persona-name={persona.name}>
      @{persona.name}
    </span>
  );
}
