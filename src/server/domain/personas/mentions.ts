/**
 * Who answers a message: the personas it @-mentions, the whole panel for
 * `/panel `, else the room's default responder. Pure: unit-tested in Node.
 */
import { type DefaultResponder, PANEL_PREFIX, type Persona } from "@/shared/personas";
import { sameName } from "./persona-roster";

export type TurnPlan =
  | { kind: "assistant" }
  | { kind: "nobody" }
  /** The room decides with a short model call whether the assistant answers (room/auto-responder.ts). */
  | { kind: "auto" }
  | { kind: "personas"; personas: Persona[]; panel: false }
  | { kind: "panel"; personas: Persona[]; question: string };

/** `@Name` at the start or after a non-word character, so e-mail addresses do not count. */
const MENTION = /(?<![\p{L}\p{N}_@.-])@([\p{L}][\p{L}\p{N}_-]*)/gu;

/** The personas a text mentions, in order of first mention, each once. */
export function mentionedPersonas(text: string, personas: readonly Persona[]): Persona[] {
  const found: Persona[] = [];
  for (const match of text.matchAll(MENTION)) {
    const persona = personas.find((p) => sameName(p.name, match[1]));
    if (persona && !found.includes(persona)) found.push(persona);
  }
  return found;
}

export function isPanelQuestion(text: string): boolean {
  return text.trimStart().startsWith(PANEL_PREFIX);
}

export function planTurn(text: string, responder: DefaultResponder, personas: readonly Persona[]): TurnPlan {
  if (isPanelQuestion(text) && personas.length > 0) {
    return { kind: "panel", personas: [...personas], question: text.trimStart().slice(PANEL_PREFIX.length).trim() };
  }
  const mentioned = mentionedPersonas(text, personas);
  if (mentioned.length > 0) return { kind: "personas", personas: mentioned, panel: false };
  if (responder === "nobody") return { kind: "nobody" };
  if (responder === "auto") return { kind: "auto" };
  if (responder === "personas" && personas.length > 0)
    return { kind: "personas", personas: [...personas], panel: false };
  return { kind: "assistant" };
}
