/**
 * Mentions of people, room side: when a turn starts on a new message, the
 * text after each `@` that is not one of the room's personas goes to the
 * overseer, which knows the workspace's people and who may see the room
 * and writes their notifications (overseer/notification-inbox.ts). Only the
 * message's own fragments travel: nothing here reads the rest of the room,
 * so a mention costs the same in a room of ten messages or ten thousand.
 * Best effort and off the turn's path (waitUntil); the overseer's unique
 * row per person and message makes a repeat (a regeneration) a no-op.
 */
import type { UIMessage } from "ai";
import { firstWord, type MentionReport, mentionFragments } from "@/server/domain/notifications/mention-fragments";
import { sameName } from "@/server/domain/personas/persona-roster";
import { messagePreview } from "@/server/domain/rooms/room-rows";
import { MessageAuthor } from "@/shared/identity";
import type { Persona } from "@/shared/personas";
import type { OverseerLink } from "./overseer-link";

interface MentionsHost {
  roomId(): string;
  /** The room's in-memory window, where a turn's question is. */
  messages(): readonly UIMessage[];
  personas(): readonly Persona[];
  overseer: Pick<OverseerLink, "call">;
  waitUntil(promise: Promise<unknown>): void;
}

/** A user message's mentions of people, or null when it has none (or no known author). */
function mentionReport(message: UIMessage, personas: readonly Persona[]): MentionReport | null {
  if (message.role !== "user") return null;
  const text = message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  if (!text.includes("@")) return null;
  const author = MessageAuthor.safeParse((message.metadata as { author?: unknown } | undefined)?.author);
  if (!author.success) return null;
  const fragments = mentionFragments(text, (fragment) => personas.some((p) => sameName(p.name, firstWord(fragment))));
  if (fragments.length === 0) return null;
  return { messageId: message.id, author: author.data, preview: messagePreview(message.parts) ?? "", fragments };
}

export class RoomMentions {
  constructor(private readonly host: MentionsHost) {}

  /** The turn's question mentions people: tell the overseer (not awaited by the turn). */
  announce(messageId: string | null) {
    if (!messageId) return;
    const message = this.host.messages().find((m) => m.id === messageId);
    const report = message && mentionReport(message, this.host.personas());
    if (!report) return;
    const roomId = this.host.roomId();
    this.host.waitUntil(
      this.host.overseer
        .call((o) => o.recordMentions(roomId, report))
        .catch((error) => console.warn("[ChatRoom] failed to report mentions:", error))
    );
  }
}
