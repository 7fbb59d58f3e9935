/**
 * What a persona sees. The room's transcript is one conversation among
 * people, the room's assistant and several personas; a model only knows
 * "user" and "assistant". So for persona P, only P's own answers stay in
 * the assistant role; everyone else speaks as a named participant in a user
 * turn ("[Ada] …", "[@Critic] …"), so P never mistakes another persona's
 * words for its own. Pure: unit-tested in Node.
 */
import type { UIMessage } from "ai";
import { authorName } from "@/shared/identity";
import type { Persona, PersonaRef } from "@/shared/personas";

type Meta = { author?: unknown; persona?: PersonaRef };

/** The label another participant's words carry in a persona's context. */
export function speakerOf(message: UIMessage): string {
  const meta = (message.metadata ?? {}) as Meta;
  if (message.role === "user") return authorName(meta.author) ?? "Someone";
  if (meta.persona?.name) return `@${meta.persona.name}`;
  return "Assistant";
}

function textOf(message: UIMessage): string {
  return message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("");
}

/** The transcript re-voiced for `personaId` (see the file comment). */
export function transcriptFor(personaId: string, messages: readonly UIMessage[]): UIMessage[] {
  const out: UIMessage[] = [];
  for (const message of messages) {
    const meta = (message.metadata ?? {}) as Meta;
    if (message.role === "assistant" && meta.persona?.id === personaId) {
      // Its own words, without tool parts: a persona's tool calls ran in
      // an earlier answer and their results are already in its text.
      const text = textOf(message);
      if (text) out.push({ id: message.id, role: "assistant", parts: [{ type: "text", text }] });
      continue;
    }
    if (message.role !== "user" && message.role !== "assistant") continue;
    const text = textOf(message);
    if (!text) continue;
    out.push({ id: message.id, role: "user", parts: [{ type: "text", text: `[${speakerOf(message)}] ${text}` }] });
  }
  return out;
}

export function personaSystemPrompt(
  persona: Pick<Persona, "name" | "systemPrompt">,
  roomName: string,
  notes: readonly string[],
  instructions?: string,
  /** The room's pins and summaries, as every answer in the room sees them. */
  memory?: string
): string {
  const sections = [
    `You are @${persona.name}, one participant in the group chat room "${roomName}". ` +
      "Other people and other AI personas speak in the room too; their messages reach you as " +
      '"[name] text". Answer as yourself only, without a "[name]" prefix, and never speak for others.'
  ];
  if (persona.systemPrompt.trim()) sections.push(persona.systemPrompt.trim());
  if (memory?.trim()) sections.push(memory.trim());
  if (notes.length > 0) {
    sections.push(`Your private notes about this room (newest first):\n${notes.map((n) => `- ${n}`).join("\n")}`);
  }
  if (instructions?.trim()) sections.push(instructions.trim());
  return sections.join("\n\n");
}
