/**
 * Mentions of people, room side: when a turn starts on a new message, the
 * text after each `@` that is not one of the room's personas, and the
 * author of the message it replies to (if a person), go to the overseer, which knows the workspace's people and who may see the room
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
import { readReplyRef } from "@/shared/replies";
import type { OverseerLink } from "./overseer-link";

interface MentionsHost {
  roomId(): string;
  /** The room's in-memory window, where a turn's question is. */
  messages(): readonly UIMessage[];
  personas(): readonly Persona[];
  /** A stored message by id, whatever its age or version (one lookup). */
  storedMessage(id: string): Promise<{ role: string; metadata?: unknown } | null | undefined>;
  overseer: Pick<OverseerLink, "call">;
  waitUntil(promise: Promise<unknown>): void;
}

/** Who wrote a stored message, when a person did (the server wrote it: metadata.author). */
function personAuthor(message: { role: string; metadata?: unknown } | undefined | null): string | null {
  if (message?.role !== "user") return null;
  const author = MessageAuthor.safeParse((message.metadata as { author?: unknown } | undefined)?.author);
  return author.success ? author.data.id : null;
}

/**
 * A user message's mentions of people and the message it replies to, or
 * null when it has neither (or no known author). `repliesTo` is filled in
 * by the caller, from one lookup of the original by id.
 */
function mentionReport(message: UIMessage, personas: readonly Persona[]): MentionReport | null {
  if (message.role !== "user") return null;
  const author = MessageAuthor.safeParse((message.metadata as { author?: unknown } | undefined)?.author);
  if (!author.success) return null;
  const text = message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  const fragments = text.includes("@")
    ? mentionFragments(text, (fragment) => personas.some((p) => sameName(p.name, firstWord(fragment))))
    : [];
  if (fragments.length === 0 && !readReplyRef(metadataOf(message).replyTo)) return null;
  return { messageId: message.id, author: author.data, preview: messagePreview(message.parts) ?? "", fragments };
}

const metadataOf = (message: UIMessage) => (message.metadata ?? {}) as { replyTo?: unknown };

export class RoomMentions {
  constructor(private readonly host: MentionsHost) {}

  /** The turn's question mentions people, or replies to someone: tell the overseer (not awaited by the turn). */
  announce(messageId: string | null) {
    if (!messageId) return;
    const message = this.host.messages().find((m) => m.id === messageId);
    const report = message && mentionReport(message, this.host.personas());
    if (!report) return;
    const replyTo = readReplyRef(metadataOf(message).replyTo);
    const roomId = this.host.roomId();
    this.host.waitUntil(
      (async () => {
        // The original's author, read once by id (any version, any age: not the window).
        const repliesTo = replyTo ? personAuthor(await this.host.storedMessage(replyTo.id)) : null;
        if (report.fragments.length === 0 && !repliesTo) return;
        await this.host.overseer.call((o) =>
          o.recordMentions(roomId, { ...report, ...(repliesTo ? { repliesTo } : {}) })
        );
      })().catch((error) => console.warn("[ChatRoom] failed to report mentions:", error))
    );
  }
}
