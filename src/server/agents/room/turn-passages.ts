/**
 * The passages of the room's files a turn's question finds, for the
 * assistant's turn (room/assistant-turn.ts) and a persona's (room/room-personas.ts)
 * alike: the best passages of the files the question carries first, then
 * the best across the room, as one numbered context section within its own
 * share of the budget; and the `search_files` tool's search over the same index.
 */
import type { UIMessage } from "ai";
import {
  attachedFileIds,
  fileSearchHit,
  passagesSection,
  type RetrievedPassage
} from "@/server/domain/files/file-context";
import type { ContextSection } from "@/server/domain/memory/context-assembly";
import type { FileSearchHit } from "@/server/domain/turns/room-tools";

/** What retrieval needs of the room's files (room/room-attachments.ts). */
export interface PassageSource {
  retrieve(question: string, limit: number, attached: readonly string[]): RetrievedPassage[];
  /** The id of this room's file a file part's url names, or null. */
  idOf(url: string): string | null;
}

/** Passages a turn retrieves at most, and their share of the context budget. */
const PASSAGES_PER_TURN = 6;
const passageBudget = (contextTokens: number) => Math.min(2_000, Math.floor(contextTokens / 4));

/** The message a turn answers (the last user message). */
function lastUserMessage(messages: readonly UIMessage[]): UIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as UIMessage;
    if (message.role === "user") return message;
  }
  return undefined;
}

function questionOf(message: UIMessage): string {
  return message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

/** The passages for the question `messages` end with, and their context section (none when nothing matched). */
export function turnPassages(
  messages: readonly UIMessage[],
  files: PassageSource,
  contextTokens: number
): { passages: RetrievedPassage[]; extra: ContextSection[] } {
  const asked = lastUserMessage(messages);
  if (!asked) return { passages: [], extra: [] };
  const attached = attachedFileIds(asked, (url) => files.idOf(url));
  const passages = files.retrieve(questionOf(asked), PASSAGES_PER_TURN, attached);
  return { passages, extra: passages.length > 0 ? [passagesSection(passages, passageBudget(contextTokens))] : [] };
}

/** The `search_files` tool's search (domain/turns/room-tools.ts). */
export function searchFiles(files: Pick<PassageSource, "retrieve">, query: string, limit: number): FileSearchHit[] {
  return files.retrieve(query, limit, []).map(fileSearchHit);
}
