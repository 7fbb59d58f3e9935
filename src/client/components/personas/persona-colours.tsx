/**
 * Persona colours for the transcript. Messages carry only `{ id, name }`
 * of their persona; the colour comes from the room's live roster, so a
 * recoloured persona recolours its past answers too. A persona the roster
 * does not know by id (a fork's copy, a share viewer's room, a deleted one)
 * is matched by name, else given a palette colour from its name: never grey.
 * Names are drawn in a shade of the colour that reads on the theme.
 */
import { Bot } from "lucide-react";
import { createContext, type ReactNode, useContext, useMemo } from "react";
import { useMediaQuery } from "@/client/hooks/use-media-query";
import { paletteColourFor, readablePersonaColour } from "@/client/lib/persona-colour";
import type { Persona, PersonaRef } from "@/shared/personas";

interface Colours {
  byId: ReadonlyMap<string, string>;
  byName: ReadonlyMap<string, string>;
}

const PersonaColours = createContext<Colours>({ byId: new Map(), byName: new Map() });

export function PersonaColoursProvider({
  personas,
  children
}: {
  personas: Persona[] | undefined;
  children: ReactNode;
}) {
  const colours = useMemo(
    () => ({
      byId: new Map((personas ?? []).map((p) => [p.id, p.colour])),
      byName: new Map((personas ?? []).map((p) => [p.name.toLowerCase(), p.colour]))
    }),
    [personas]
  );
  return <PersonaColours.Provider value={colours}>{children}</PersonaColours.Provider>;
}

function usePersonaColour(persona: PersonaRef): string {
  const { byId, byName } = useContext(PersonaColours);
  return byId.get(persona.id) ?? byName.get(persona.name.toLowerCase()) ?? paletteColourFor(persona.name);
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
  const dark = useMediaQuery("(prefers-color-scheme: dark)");
  return (
    <span
      className="truncate text-sm font-semibold"
      style={{ color: readablePersonaColour(colour, dark ? "dark" : "light") }}
      data-persona-name={persona.name}
    >
      @{persona.name}
    </span>
  );
}
