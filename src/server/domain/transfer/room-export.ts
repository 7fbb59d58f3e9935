/** The readable (Markdown) transcript of a room export. Pure. */

import type { ChatMessage } from "@/shared/protocol";
import type { Reaction } from "@/shared/reactions";
import type { RoomExportHeader } from "@/shared/transfer";
import { markdownInline, markdownText } from "./markdown-text";

function iso(ms: number | undefined): string {
  return typeof ms === "number" ? new Date(ms).toISOString().replace("T", " ").slice(0, 16) + " UTC" : "";
}

export function renderMarkdownHeader(header: RoomExportHeader): string {
  const { room } = header;
  let out = `# ${markdownInline(room.name)}\n\n_Exported from Rooms on ${iso(Date.parse(header.exportedAt))}._\n\n`;
  if (room.origin)
    out += `_Forked from “${markdownInline(room.origin.roomName)}” (${markdownInline(room.origin.roomId)})._\n\n`;
  if (room.settings.systemPrompt) {
    out += `**System prompt**\n\n${markdownText(room.settings.systemPrompt)
      .split("\n")
      .map((line) => `> ${line}`)
      .join("\n")}\n\n`;
  }
  return `${out}---\n\n`;
}

/** One message as a `###` section; `label` (e.g. "earlier version") is appended to its heading. */
export function renderMarkdownMessage(message: ChatMessage, label?: string, reactions?: readonly Reaction[]): string {
  const meta = message.metadata ?? {};
  const who =
    message.role === "assistant"
      ? meta.persona
        ? `${markdownInline(meta.persona.name)} (persona)`
        : `Assistant${meta.model ? ` (${markdownInline(meta.model)})` : ""}`
      : typeof meta.author === "string"
        ? markdownInline(meta.author)
        : markdownInline(meta.author?.name ?? "Someone");
  const body: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && part.text) body.push(markdownText(part.text));
    else if (part.type === "reasoning" && part.text)
      body.push(`<details><summary>Reasoning</summary>\n\n${markdownText(part.text)}\n\n</details>`);
    else if (part.type.startsWith("tool-")) body.push(`_Used the tool \`${part.type.slice(5)}\`._`);
  }
  const notes: string[] = [];
  if (meta.stopped) notes.push("_Stopped before it finished._");
  if (meta.error) notes.push(`_The answer failed: ${markdownInline(meta.error)}_`);
  if (reactions?.length) {
    notes.push(
      `_Reactions: ${reactions.map((r) => `${markdownInline(r.emoji)} ${r.by.map((p) => markdownInline(p.name)).join(", ")}`).join(" · ")}_`
    );
  }
  const when = iso(meta.createdAt);
  return `### ${who}${when ? ` · ${when}` : ""}${label ? ` · ${label}` : ""}\n\n${[...body, ...notes].join("\n\n") || "_(empty)_"}\n\n`;
}

/**
 * Opens the section after the transcript that holds what edits and
 * regenerations replaced, so a reader of the file never takes an old
 * version for part of the conversation.
 */
export function renderMarkdownVersionsHeading(): string {
  return (
    "---\n\n## Earlier versions\n\n" +
    "_Messages that edits and regenerations replaced, and what followed them on their own branch, oldest first. " +
    "They are not part of the transcript above._\n\n"
  );
}
