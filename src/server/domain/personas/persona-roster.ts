/**
 * Pure roster logic for a room's personas: create, update, delete with the
 * limits and uniqueness rules. No storage: the room keeps the list in its
 * synced state and calls these with it.
 */

import { AppError } from "@/server/app-error";
import { generateRoomId } from "@/server/domain/rooms/room-rows";
import { looksAlike } from "@/shared/names";
import {
  type CreatePersonaBody,
  MAX_PERSONAS_PER_ROOM,
  PERSONA_PALETTE,
  type Persona,
  type UpdatePersonaBody
} from "@/shared/personas";
import { isReservedName } from "./persona-names";

export const personaNotFound = (id: string) =>
  new AppError("not_found:persona", 404, `Persona "${id}" does not exist in this room.`);

/** Names are compared the way people type mentions: case-insensitively. */
export function sameName(a: string, b: string): boolean {
  return a.localeCompare(b, undefined, { sensitivity: "accent" }) === 0;
}

/** A new or changed name: not reserved, and not looking like another persona's (persona-names.ts). */
function requireUniqueName(list: readonly Persona[], name: string, exceptId?: string) {
  if (isReservedName(name))
    throw new AppError(
      "conflict:persona_name",
      409,
      `@${name} is reserved: it reads as the room's assistant or the model.`
    );
  const clash = list.find((p) => p.id !== exceptId && (sameName(p.name, name) || looksAlike(p.name, name)));
  if (clash)
    throw new AppError(
      "conflict:persona_name",
      409,
      sameName(clash.name, name)
        ? `This room already has a persona named @${clash.name}.`
        : `@${name} looks like @${clash.name}, already in this room: pick a name people can tell apart.`
    );
}

export function addPersona(
  list: readonly Persona[],
  input: CreatePersonaBody,
  now: number,
  newId: () => string = generateRoomId
): { list: Persona[]; persona: Persona } {
  if (list.length >= MAX_PERSONAS_PER_ROOM) {
    throw new AppError(
      "conflict:persona_limit",
      409,
      `A room holds at most ${MAX_PERSONAS_PER_ROOM} personas. Delete one first.`
    );
  }
  requireUniqueName(list, input.name);
  const used = new Set(list.map((p) => p.colour));
  const persona: Persona = {
    id: newId(),
    name: input.name,
    colour: input.colour ?? PERSONA_PALETTE.find((c) => !used.has(c)) ?? PERSONA_PALETTE[0],
    systemPrompt: input.systemPrompt ?? "",
    model: input.model ?? null,
    temperature: input.temperature ?? null,
    tools: input.tools ?? ["remember", "recall", "react"],
    createdAt: now
  };
  return { list: [...list, persona], persona };
}

export function updatePersona(
  list: readonly Persona[],
  id: string,
  patch: UpdatePersonaBody
): { list: Persona[]; persona: Persona } {
  const current = list.find((p) => p.id === id);
  if (!current) throw personaNotFound(id);
  if (patch.name !== undefined) requireUniqueName(list, patch.name, id);
  const persona: Persona = {
    ...current,
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.colour !== undefined ? { colour: patch.colour } : {}),
    ...(patch.systemPrompt !== undefined ? { systemPrompt: patch.systemPrompt } : {}),
    ...(patch.model !== undefined ? { model: patch.model } : {}),
    ...(patch.temperature !== undefined ? { temperature: patch.temperature } : {}),
    ...(patch.tools !== undefined ? { tools: patch.tools } : {})
  };
  return { list: list.map((p) => (p.id === id ? persona : p)), persona };
}

export function removePersona(list: readonly Persona[], id: string): Persona[] {
  if (!list.some((p) => p.id === id)) throw personaNotFound(id);
  return list.filter((p) => p.id !== id);
}
