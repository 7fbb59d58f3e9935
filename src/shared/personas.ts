/**
 * Personas: named AI participants of a room, each answering with its own
 * system prompt, model and tools. Wire types and zod schemas for REST and
 * the room's synced state. Runtime-safe for the browser bundle.
 */
import { z } from "zod";
import { ModelName, SystemPrompt, Temperature } from "./model-settings";

/** Who answers a message that mentions no persona: a room setting (shared/protocol.ts). */
export const DEFAULT_RESPONDERS = ["assistant", "personas", "nobody", "auto"] as const;
export type DefaultResponder = (typeof DEFAULT_RESPONDERS)[number];

/** A message starting with this goes to every persona at once (a panel). */
export const PANEL_PREFIX = "/panel ";

/** A room holds at most this many personas. */
export const MAX_PERSONAS_PER_ROOM = 8;
const MAX_PERSONA_NAME_LENGTH = 24;

/**
 * Names are what people type after `@`, so they are one word: a letter, then
 * letters, digits, `_` or `-`. Unique per room, compared case-insensitively.
 */
const PERSONA_NAME_PATTERN = /^[\p{L}][\p{L}\p{N}_-]*$/u;

/**
 * Tools a persona may be allowed to use. `react` puts an emoji on the
 * question instead of answering it, when a reaction says all there is to say.
 */
export const PERSONA_TOOLS = [
  "get_current_time",
  "search_room_history",
  "search_files",
  "remember",
  "recall",
  "react"
] as const;
export type PersonaTool = (typeof PERSONA_TOOLS)[number];

const PersonaName = z
  .string({ error: "name must be a string" })
  .trim()
  .min(1, "name must not be empty")
  .max(MAX_PERSONA_NAME_LENGTH, `name must be at most ${MAX_PERSONA_NAME_LENGTH} characters`)
  .regex(
    PERSONA_NAME_PATTERN,
    "name must be one word (a letter, then letters, digits, _ or -) so it can be @-mentioned"
  );

const PersonaColour = z
  .string({ error: "colour must be a string" })
  .regex(/^#[0-9a-fA-F]{6}$/, "colour must be a hex colour like #3366ff")
  .transform((s) => s.toLowerCase());

const PersonaTools = z
  .array(z.enum(PERSONA_TOOLS, { error: `tools may only contain ${PERSONA_TOOLS.join(", ")}` }))
  .max(PERSONA_TOOLS.length)
  .transform((tools) => [...new Set(tools)]);

export const CreatePersonaBody = z.strictObject({
  name: PersonaName,
  colour: PersonaColour.optional(),
  systemPrompt: SystemPrompt.optional(),
  model: ModelName.nullable().optional(),
  temperature: Temperature.nullable().optional(),
  tools: PersonaTools.optional()
});
export type CreatePersonaBody = z.infer<typeof CreatePersonaBody>;

export const UpdatePersonaBody = CreatePersonaBody.partial().refine(
  (b) => Object.keys(b).length > 0,
  "give at least one of name, colour, systemPrompt, model, temperature, tools"
);
export type UpdatePersonaBody = z.infer<typeof UpdatePersonaBody>;

export interface Persona {
  id: string;
  name: string;
  colour: string;
  systemPrompt: string;
  /** null: the room's model. */
  model: string | null;
  /** null: the room's temperature. */
  temperature: number | null;
  tools: PersonaTool[];
  createdAt: number;
}

/** Who wrote an answer, on `metadata.persona`. */
export interface PersonaRef {
  id: string;
  name: string;
}

/** Colours handed out to personas created without one, in order. */
export const PERSONA_PALETTE = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4d7c0f"];
